"""One panel per idea of the paper, shown as pages beside the attention grid."""
