// Anchors the fitscale_cloud library while the layer is being filled in; delete once the layer
// has other sources.
namespace fitscale::layer_anchor { int cloud = 0; }
