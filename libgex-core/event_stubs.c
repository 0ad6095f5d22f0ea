/*
 * event_stubs.c: gex_Event_* and gex_NBI_* (spec: "Event test/wait
 * operations", "NBI Access regions") before any operation can produce an
 * event.  No call returns a real event yet and no NBI operation exists, so
 * what can legitimately reach these functions is handled for real:
 * GEX_EVENT_INVALID is complete, arrays of GEX_EVENT_INVALID succeed, nothing
 * is ever outstanding for gex_NBI_Test/Wait, and an access region is always
 * empty.  Any other event value ends the job.  The issue that introduces the
 * event objects replaces this file.
 */
#include "core_layer.h"
#include <gasnetex.h>

/* Per-thread access-region state: regions do not nest (spec: "NBI Access
 * regions"), and a misuse is easier to find here than as a hang later. */
static _Thread_local int gexi_in_access_region;

/* Ends the job on an event this file cannot know: a real event would come
 * from an operation that does not exist yet, GEX_EVENT_NO_OP is erroneous to
 * test or wait on (spec: "Pre-defined output values"). */
static void gexi_event_unknown(const char *func, gex_Event_t event) __attribute__((noreturn));
static void gexi_event_unknown(const char *func, gex_Event_t event)
{
    if (event == GEX_EVENT_NO_OP)
        gexi_fatal("%s: GEX_EVENT_NO_OP may not be tested or waited on", func);
    gexi_not_implemented_fatal(func);
}

/* Accepts an array only if every entry is GEX_EVENT_INVALID (complete): then
 * the Some and the All forms both succeed at once and change nothing. */
static void gexi_events_check_invalid(const char *func, const gex_Event_t *pevent,
                                      size_t numevents)
{
    for (size_t i = 0; i < numevents; i++)
        if (pevent[i] != GEX_EVENT_INVALID)
            gexi_event_unknown(func, pevent[i]);
}

int gex_Event_Test(gex_Event_t event)
{
    if (event != GEX_EVENT_INVALID)
        gexi_event_unknown(__func__, event);
    return 0;
}

void gex_Event_Wait(gex_Event_t event)
{
    if (event != GEX_EVENT_INVALID)
        gexi_event_unknown(__func__, event);
}

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    gexi_events_check_invalid(__func__, pevent, numevents);
    return 0;
}

void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    gexi_events_check_invalid(__func__, pevent, numevents);
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    gexi_events_check_invalid(__func__, pevent, numevents);
    return 0;
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    gexi_events_check_invalid(__func__, pevent, numevents);
}

/* The spec lets a query on GEX_EVENT_INVALID return GEX_EVENT_INVALID. */
gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category)
{
    if (root != GEX_EVENT_INVALID)
        GEXI_NOT_IMPLEMENTED_FATAL();
    return GEX_EVENT_INVALID;
}

/* No NBI operation exists yet, so none is ever outstanding. */
int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags)
{
    return 0;
}

void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags)
{
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags)
{
    if (gexi_in_access_region)
        gexi_fatal("gex_NBI_BeginAccessRegion: this thread is already in an access region");
    gexi_in_access_region = 1;
}

/* The region cannot hold any operation yet: its event is already complete. */
gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags)
{
    if (!gexi_in_access_region)
        gexi_fatal("gex_NBI_EndAccessRegion: this thread is not in an access region");
    gexi_in_access_region = 0;
    return GEX_EVENT_INVALID;
}
