// Anchors the fitscale_kube library while the layer is being filled in; delete once the layer
// has other sources.
namespace fitscale::layer_anchor { int kube = 0; }
