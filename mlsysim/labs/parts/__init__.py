"""Per-notebook part functions: plain functions of widget values, tested over the widget grid."""
