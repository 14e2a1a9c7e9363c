package io.syncmirror.perf.gate;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class GateOptionsTest
{
    private static String error(final String... args)
    {
        return assertThrows(IllegalArgumentException.class, () -> GateOptions.parse(args)).getMessage();
    }

    @Test
    void shouldTakeTheQuickSuiteAndItsRoundsByDefault(@TempDir final Path dir)
    {
        final GateOptions options = GateOptions.parse(new String[] {"--baseline-dir", dir.toString(),
            "--candidate-dir", dir.toString(), "--out", dir.resolve("out").toString()});
        assertEquals("quick", options.suite().name());
        assertEquals(Suite.quick().defaultRounds(), options.rounds());
        assertEquals(10.0, options.thresholdPct());
        assertEquals(0.99, options.confidence());
        assertEquals(DecisionRule.Method.T, options.method());
        assertEquals("-Xms4g -Xmn1024m -XX:+AlwaysPreTouch", options.suite().jvmOptions());
        assertEquals("-Xms6g -Xmn1536m -XX:+AlwaysPreTouch", Suite.full().jvmOptions());
    }

    @Test
    void shouldNameTheFlagOfEveryBadValue(@TempDir final Path dir)
    {
        final String d = dir.toString();
        assertEquals("--suite takes quick or full: 'slow'", error("--suite", "slow"));
        assertEquals("--rounds must be 3.0..200.0: 2", error("--rounds", "2"));
        assertEquals("--threshold-pct needs a number: 'ten'", error("--threshold-pct", "ten"));
        assertEquals("--baseline-dir: no such directory: /no/such/dir", error("--baseline-dir", "/no/such/dir"));
        assertEquals("--method takes t or bootstrap: 'z'", error("--method", "z"));
        assertEquals("unknown flag: --fast", error("--fast"));
        assertEquals("--out needs a value", error("--out"));
        assertEquals("give exactly one of --baseline-dir and --stored-baseline", error("--candidate-dir", d,
            "--out", d));
        assertEquals("give exactly one of --baseline-dir and --stored-baseline", error("--baseline-dir", d,
            "--stored-baseline", d, "--candidate-dir", d, "--out", d));
        assertEquals("--candidate-dir is missing", error("--baseline-dir", d, "--out", d));
    }
}
