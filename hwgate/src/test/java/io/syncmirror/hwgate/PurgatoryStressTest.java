package io.syncmirror.hwgate;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multi-threaded stress of the table, gate and purgatory (see {@link PurgatoryStressHarness}), and proof that it
 * can fail: the same run against two seeded mutants must report violations.
 */
class PurgatoryStressTest
{
    /**
     * How long a mutant runs at most; it stops at its first violation, usually within seconds. A missing fence shows
     * only when the two followers' stores to one slot cross, which a machine that runs the harness fast makes rare:
     * one CI run went 20 s (1.1 million requests) without it.
     */
    private static final long MUTANT_RUN_MS = 60_000;

    @Test
    @Timeout(120)
    void shouldHoldEveryInvariantUnderConcurrentLeoUpdatesAndMembershipChanges() throws Exception
    {
        final PurgatoryStressHarness.Result result =
            new PurgatoryStressHarness(PurgatoryStressHarness.Mutant.NONE, 20261130L, true).run(4_000, false);
        assertTrue(result.violations.isEmpty(), result.toString());
        assertTrue(result.successes > 1_000, "too little progress to prove anything: " + result);
        assertTrue(result.membershipChanges > 100, "too few membership changes: " + result);
        assertTrue(result.remoteUnderMin > 0, "the under-MinISR path was never taken: " + result);
        assertTrue(result.invariantReads > 10_000, "the monitor barely ran: " + result);
    }

    @Test
    @Timeout(120)
    void shouldHoldEveryInvariantWithoutMembershipChurn() throws Exception
    {
        // The configuration the lost wake-up mutant runs in, shown to pass without the mutant.
        final PurgatoryStressHarness.Result result =
            new PurgatoryStressHarness(PurgatoryStressHarness.Mutant.NONE, 7L, false).run(3_000, false);
        assertTrue(result.violations.isEmpty(), result.toString());
        assertTrue(result.successes > 1_000, "too little progress to prove anything: " + result);
    }

    @Test
    @Timeout(150)
    void shouldCatchAPlainStoreInsteadOfTheCasOnTheHighWatermark() throws Exception
    {
        assertCaught(PurgatoryStressHarness.Mutant.PLAIN_HW_STORE, true, "VIOLATION");
    }

    @Test
    @Timeout(150)
    void shouldCatchASkippedHighWatermarkRecheckAfterEnqueueing() throws Exception
    {
        assertCaught(PurgatoryStressHarness.Mutant.SKIP_RECHECK, false, "VIOLATION lost wake-up");
    }

    @Test
    @Timeout(150)
    void shouldCatchABatchOfLeoReportsWithoutItsFence() throws Exception
    {
        assertCaught(PurgatoryStressHarness.Mutant.BATCH_WITHOUT_FENCE, false, "VIOLATION lost advance");
    }

    /** Runs {@code mutant} and asserts that the harness printed a violation line starting with {@code violation}. */
    private static void assertCaught(final PurgatoryStressHarness.Mutant mutant, final boolean churn,
        final String violation) throws Exception
    {
        final List<String> output = runMutant(mutant, churn);
        assertTrue(output.stream().anyMatch(line -> line.startsWith(violation)), String.join("\n", output));
    }

    /** Runs the harness against a mutant in a child JVM, which is killed if the mutant wedged it. */
    private static List<String> runMutant(final PurgatoryStressHarness.Mutant mutant, final boolean churn)
        throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        final String jvmFlags = System.getProperty("syncmirror.jvm.flags", "").trim(); // set by the build
        if (!jvmFlags.isEmpty())
        {
            command.addAll(List.of(jvmFlags.split("\\s+")));
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(PurgatoryStressHarness.class.getName());
        command.add(mutant.name());
        command.add("1");
        command.add(Long.toString(MUTANT_RUN_MS));
        command.add(Boolean.toString(churn));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final List<String> output = new ArrayList<>();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    synchronized (output)
                    {
                        output.add(line);
                    }
                }
            }
            catch (final java.io.IOException ignored)
            {
                // the process was killed
            }
        });
        reader.start();
        // The run, then its drain: a request a lost advance stuck waits for its deadline.
        final boolean exited = process.waitFor(MUTANT_RUN_MS + PurgatoryStressHarness.DEADLINE_MS + 30_000,
            TimeUnit.MILLISECONDS);
        if (!exited)
        {
            process.destroyForcibly().waitFor();
        }
        reader.join(5_000);
        synchronized (output)
        {
            assertFalse(output.isEmpty(), "the child JVM printed nothing");
            output.stream().filter(line -> line.startsWith("RESULT")).forEach(line -> System.out.println(mutant + " " + line));
            return new ArrayList<>(output);
        }
    }
}
