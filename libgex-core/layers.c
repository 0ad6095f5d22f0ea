/* placeholder */ typedef int gexi_placeholder_t;
