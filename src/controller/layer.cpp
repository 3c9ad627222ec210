// Anchors the fitscale_controller library while the layer is being filled in; delete once the layer
// has other sources.
namespace fitscale::layer_anchor { int controller = 0; }
