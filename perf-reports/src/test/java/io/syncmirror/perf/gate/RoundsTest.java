package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RoundsTest
{
    @Test
    void shouldRoundTripMetricNamesWithCommasThroughTheCsv(@TempDir final Path dir) throws IOException
    {
        final Rounds rounds = new Rounds();
        rounds.add(Rounds.BASELINE, 2, "sync-bench.SYNC.p99_us", 5000.0, true);
        rounds.add(Rounds.BASELINE, 1, "sync-bench.SYNC.p99_us", 4000.0, false);
        rounds.add(Rounds.CANDIDATE, 1, "jmh.HwRecomputeBenchmark.hwRecompute[mirrors=1,partitions=100000]", 88.5,
            false);
        rounds.write(dir.resolve("rounds.csv"));
        final Rounds read = Rounds.read(dir.resolve("rounds.csv"));
        assertEquals(rounds.samples(), read.samples());
        assertArrayEquals(new double[] {4000.0, 5000.0}, read.values(Rounds.BASELINE, "sync-bench.SYNC.p99_us"));
        assertEquals(List.of("sync-bench.SYNC.p99_us", "jmh.HwRecomputeBenchmark.hwRecompute[mirrors=1,"
            + "partitions=100000]"), read.metrics());
    }

    @Test
    void shouldRefuseAFileOfAnotherLayout(@TempDir final Path dir) throws IOException
    {
        Files.writeString(dir.resolve("a.csv"), "side,round,value\nbaseline,1,3\n");
        final IOException ex = assertThrows(IOException.class, () -> Rounds.read(dir.resolve("a.csv")));
        assertTrue(ex.getMessage().contains("does not start with"), ex.getMessage());
        Files.writeString(dir.resolve("b.csv"), Rounds.HEADER + "\nbaseline,one,m,3.0,false\n");
        assertTrue(assertThrows(IOException.class, () -> Rounds.read(dir.resolve("b.csv"))).getMessage()
            .contains("line 2"));
    }

    @Test
    void shouldCountSaturatedWindowsOncePerWindow()
    {
        final Rounds rounds = new Rounds();
        for (int r = 1; r <= 4; r++)
        {
            rounds.add(Rounds.CANDIDATE, r, "sync-bench.ASYNC.p50_us", 1000, r <= 3);
            rounds.add(Rounds.CANDIDATE, r, "sync-bench.ASYNC.p99_us", 5000, r <= 3);
        }
        assertArrayEquals(new int[] {3, 4}, rounds.saturation(Rounds.CANDIDATE));
        assertArrayEquals(new int[] {0, 0}, rounds.saturation(Rounds.BASELINE));
    }
}
