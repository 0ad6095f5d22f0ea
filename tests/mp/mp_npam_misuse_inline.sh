#!/bin/sh
# mp_npam_misuse_inline.sh: mp_npam_misuse.sh with GEX_AM_NP_INLINE=1, so
# that the debug build of the sanitizer pass checks the diagnostics of the
# inline Prepare (gasnetex.h; docs/am.md, "Inline Prepare") too: there a
# fault of a small Medium Prepare is reported at its Commit.  In other
# builds the inline Prepare is the default and this repeats the same checks.
GEX_AM_NP_INLINE=1
export GEX_AM_NP_INLINE
. "$(dirname "$0")/mp_npam_misuse.sh"
