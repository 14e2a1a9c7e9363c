package io.syncmirror.bench.e2e;

import java.time.LocalDateTime;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ProgressTest
{
    private static final long S = 1_000_000_000L;

    @Test
    void shouldPlanSetupThenEachModesWindowsWithThePromotionBeforeSync()
    {
        final List<Progress.Phase> plan = Progress.plan(SyncBenchOptions.parse(new String[] {"--warmup-s", "5",
            "--duration-s", "15"}, LocalDateTime.now()));
        assertEquals(List.of(new Progress.Phase("setup", -1), new Progress.Phase("ASYNC warm-up", 5 * S),
            new Progress.Phase("ASYNC measured", 15 * S), new Progress.Phase("SYNC promotion", -1),
            new Progress.Phase("SYNC warm-up", 5 * S), new Progress.Phase("SYNC measured", 15 * S)), plan);
    }

    @Test
    void shouldPlanOnlyTheSetupOfAServedRun()
    {
        assertEquals(List.of(new Progress.Phase("setup", -1)), Progress.plan(SyncBenchOptions.parse(
            new String[] {"--serve"}, LocalDateTime.now())));
    }

    @Test
    void shouldSayWhatIsLeftAndWhenThatIsOnlyALowerBound()
    {
        final List<Progress.Phase> plan = Progress.plan(SyncBenchOptions.parse(new String[] {"--warmup-s", "5",
            "--duration-s", "15"}, LocalDateTime.now()));
        assertEquals("progress: setup 0:12 | elapsed 0:12 | remaining at least 0:40",
            Progress.line(plan, 0, 12 * S, 12 * S));
        assertEquals("progress: ASYNC measured 0:06 of 0:15 | elapsed 0:31 | remaining at least 0:29",
            Progress.line(plan, 2, 6 * S, 31 * S));
        assertEquals("progress: SYNC measured 0:10 of 0:15 | elapsed 1:10 | remaining ~0:05",
            Progress.line(plan, 5, 10 * S, 70 * S));
        assertEquals("progress: SYNC measured 0:17 of 0:15 | elapsed 1:17 | remaining ~0:00",
            Progress.line(plan, 5, 17 * S, 77 * S));
        assertEquals("progress: setup 0:03 | elapsed 0:03 | remaining unknown",
            Progress.line(List.of(new Progress.Phase("setup", -1)), 0, 3 * S, 3 * S));
    }
}
