package io.syncmirror.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/syncmirror-gate.sh} on bad input, as a CI job would run it: each case exits 2 with one clear line,
 * before anything is measured. (Its measuring runs take minutes: their figures are in docs/regression-gate.md.)
 */
@Timeout(300)
class GateScriptTest
{
    private static final Path ROOT = Paths.get("").toAbsolutePath().getParent();

    /** The script's exit status and everything it printed. */
    private record Run(int status, String output)
    {
    }

    private static Run gate(final Path out, final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("bin/syncmirror-gate.sh")
            .toString()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
            .redirectOutput(out.toFile()).start();
        assertTrue(process.waitFor(240, TimeUnit.SECONDS), "the gate did not exit");
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    @Test
    void shouldExitTwoForABaselineThatIsNeitherACommitNorADirectory(@TempDir final Path dir) throws Exception
    {
        final Run run = gate(dir.resolve("out.txt"), "--baseline", "no-such-ref-4f1c");
        assertEquals(2, run.status(), run.output());
        assertTrue(run.output().contains("error: --baseline 'no-such-ref-4f1c' is neither a directory nor a commit "
            + "of this repository"), run.output());
    }

    @Test
    void shouldExitTwoForBadArguments(@TempDir final Path dir) throws Exception
    {
        final Run missing = gate(dir.resolve("a.txt"));
        assertEquals(2, missing.status(), missing.output());
        assertTrue(missing.output().contains("error: --baseline is required"), missing.output());
        final Run unknown = gate(dir.resolve("b.txt"), "--baseline", "HEAD", "--fast");
        assertEquals(2, unknown.status(), unknown.output());
        assertTrue(unknown.output().contains("error: unknown argument '--fast'"), unknown.output());
        final Run noValue = gate(dir.resolve("c.txt"), "--baseline");
        assertEquals(2, noValue.status(), noValue.output());
        assertTrue(noValue.output().contains("error: --baseline needs a value"), noValue.output());
        final Path notACheckout = Files.createDirectories(dir.resolve("empty"));
        final Run notOurs = gate(dir.resolve("d.txt"), "--baseline", notACheckout.toString());
        assertEquals(2, notOurs.status(), notOurs.output());
        assertTrue(notOurs.output().contains("is not a syncmirror checkout"), notOurs.output());
    }

    @Test
    void shouldExitTwoWithTheBuildsLogWhenTheBaselineDoesNotBuild(@TempDir final Path dir) throws Exception
    {
        // A checkout whose pom is broken: the gate builds it (no jar yet) and reports the failure.
        final Path broken = Files.createDirectories(dir.resolve("broken/bin"));
        Files.copy(ROOT.resolve("bin/syncmirror-bench.sh"), broken.resolve("syncmirror-bench.sh"));
        Files.writeString(dir.resolve("broken/pom.xml"), "<project><modelVersion>4.0.0</modelVersion>"
            + "<groupId>x</groupId><artifactId>broken</artifactId><version>1</version><modules><module>benchmarks"
            + "</module></modules></project>");
        final Run run = gate(dir.resolve("out.txt"), "--baseline", dir.resolve("broken").toString());
        assertEquals(2, run.status(), run.output());
        assertTrue(run.output().contains("error: building the baseline"), run.output());
        assertTrue(run.output().contains("failed; the whole log: "), run.output());
    }

    @Test
    void shouldExitTwoForAStoredBaselineOfAnotherSuiteVersion(@TempDir final Path dir) throws Exception
    {
        final Path stored = Files.createDirectories(dir.resolve("stored"));
        Files.writeString(stored.resolve("gate.properties"), "gate.format=1\nsuite=quick v0\\: an older bench\n"
            + "rounds=5\n");
        Files.writeString(stored.resolve("rounds.csv"), "side,round,metric,value,saturated\n"
            + "candidate,1,sync-bench.ASYNC.p50_us,1000.0,false\n");
        final Run run = gate(dir.resolve("out.txt"), "--baseline", stored.toString(), "--out",
            dir.resolve("results").toString());
        assertEquals(2, run.status(), run.output());
        assertTrue(run.output().contains("error: the gate could not run: the stored baseline " + stored
            + " ran another suite or benchmark version: 'quick v0: an older bench'"), run.output());
        Files.writeString(stored.resolve("gate.properties"), "gate.format=7\nsuite=x\n");
        final Run format = gate(dir.resolve("out2.txt"), "--baseline", stored.toString(), "--out",
            dir.resolve("results2").toString());
        assertEquals(2, format.status(), format.output());
        assertTrue(format.output().contains("is gate results format 7; this gate reads format 1"), format.output());
    }
}
