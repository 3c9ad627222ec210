// Anchors the fitscale_cost library while the layer is being filled in; delete once the layer
// has other sources.
namespace fitscale::layer_anchor { int cost = 0; }
