/* tui_views — the table of views and where each goes on the screen. Adding a panel is one
 * view_NAME.c, one row here and one rectangle in tui_layout. */
#include "tui_internal.h"

const struct tui_view *const tui_views[TUI_V_COUNT] = {
    [TUI_V_HEADER] = &tui_view_header, [TUI_V_KERNELS] = &tui_view_kernels,
    [TUI_V_CHART] = &tui_view_chart,   [TUI_V_SMMAP] = &tui_view_smmap,
    [TUI_V_SYSTEM] = &tui_view_system, [TUI_V_DRAM] = &tui_view_dram,
    [TUI_V_LOG] = &tui_view_log,       [TUI_V_EXPLAIN] = &tui_view_explain,
    [TUI_V_LESSON] = &tui_view_lesson, [TUI_V_KEYBAR] = &tui_view_keybar,
};

#define HEADER_ROWS 3
#define KEYBAR_ROWS 1

static struct tui_rect rect(int y, int x, int h, int w)
{
    return (struct tui_rect){y, x, h, w};
}

/*  header (3 rows)
 *  kernel table (one row per kernel, at most a third of the rest)
 *  NP history (1/2) | SM map (1/4) | system (1/4)      60 % of what is left (projector: 2/3)
 *  DRAM (3/10)      | event log    | explain           the rest
 *  key bar
 *
 *  With the lesson panel, the right half is the lesson, as tall as the rest of the screen, and
 *  the left half the chart above one panel the step chooses (the event log unless it shows the
 *  system metrics, the DRAM panel, the SM map or the explain panel):
 *  NP history (1/2) | lesson (1/2)
 *  side (1/2)       |               */
int tui_layout(int rows, int cols, unsigned nkernels, const struct tui_layout_opts *o,
               struct tui_rect out[TUI_V_COUNT])
{
    if (rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS)
        return -1;
    for (unsigned v = 0; v < TUI_V_COUNT; v++)
        out[v] = rect(0, 0, 0, 0);
    int body = rows - HEADER_ROWS - KEYBAR_ROWS;
    int kernels_h = (int)nkernels + 3; /* frame and column titles */
    if (kernels_h > body / 3)
        kernels_h = body / 3;
    int rest = body - kernels_h;
    int mid_h = rest * (o->projector ? 67 : 60) / 100, low_h = rest - mid_h;
    int mid_y = HEADER_ROWS + kernels_h, low_y = mid_y + mid_h;

    out[TUI_V_HEADER] = rect(0, 0, HEADER_ROWS, cols);
    out[TUI_V_KERNELS] = rect(HEADER_ROWS, 0, kernels_h, cols);
    out[TUI_V_KEYBAR] = rect(rows - KEYBAR_ROWS, 0, KEYBAR_ROWS, cols);
    int chart_w = cols / 2;
    out[TUI_V_CHART] = rect(mid_y, 0, mid_h, chart_w);

    if (o->lesson) {
        out[TUI_V_LESSON] = rect(mid_y, chart_w, rest, cols - chart_w);
        enum tui_view_id side = o->side;
        if (side != TUI_V_SYSTEM && side != TUI_V_DRAM && side != TUI_V_SMMAP &&
            side != TUI_V_EXPLAIN)
            side = TUI_V_LOG;
        out[side] = rect(low_y, 0, low_h, chart_w);
        return 0;
    }

    int map_w = (cols - chart_w) / 2, sys_w = cols - chart_w - map_w;
    out[TUI_V_SMMAP] = rect(mid_y, chart_w, mid_h, map_w);
    out[TUI_V_SYSTEM] = rect(mid_y, chart_w + map_w, mid_h, sys_w);

    int dram_w = cols * 3 / 10, log_w = (cols - dram_w) / 2, explain_w = cols - dram_w - log_w;
    out[TUI_V_DRAM] = rect(low_y, 0, low_h, dram_w);
    out[TUI_V_LOG] = rect(low_y, dram_w, low_h, log_w);
    out[TUI_V_EXPLAIN] = rect(low_y, dram_w + log_w, low_h, explain_w);
    return 0;
}
