dnl The release version and each layer's libtool -version-info
dnl (current:revision:age): the one place they are set.  docs/releasing.md
dnl says when each number changes; tests/check-abi.sh holds them to the ABI
dnl recorded for the last release in abi/ (an ABI change since the release
dnl without the matching change here fails make check).
m4_define([GEX_RELEASE_VERSION], [2026.12.1])
m4_define([GEX_VI_CORE],    [3:0:2])
m4_define([GEX_VI_SHM],     [1:0:0])
m4_define([GEX_VI_AM],      [2:0:1])
m4_define([GEX_VI_RMA],     [2:0:1])
m4_define([GEX_VI_VIS],     [2:0:1])
m4_define([GEX_VI_ATOMICS], [1:0:0])
m4_define([GEX_VI_COLL],    [2:0:1])
m4_define([GEX_VI_MK],      [1:0:0])
m4_define([GEX_VI_SHMEM],   [1:0:0])
