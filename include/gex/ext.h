/* gex/ext.h: filled by a later step */
