package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.syncmirror.perf.data.JmhResults;

/**
 * One round of one build's JMH benchmarks: JMH's own command line ({@code org.openjdk.jmh.Main}) against that
 * build's {@code benchmarks/target/benchmarks.jar}, its JSON read back. Stateless.
 */
final class JmhRun
{
    private JmhRun()
    {
    }

    /** Runs {@code suite}'s benchmarks from {@code checkout} and returns {@code jmh.<key>} to its score. */
    static Map<String, Double> run(final String side, final Path checkout, final Suite suite, final Path resultFile,
        final long timeoutSeconds) throws GateException
    {
        final Path jar = checkout.resolve("benchmarks/target/benchmarks.jar");
        if (!Files.isRegularFile(jar))
        {
            throw new GateException(side + ": " + jar + " is missing: the build did not make it");
        }
        final List<String> command = new ArrayList<>(List.of(javaExecutable(), "-cp", jar.toString(),
            "org.openjdk.jmh.Main"));
        command.addAll(suite.jmhArgs(resultFile));
        final Path log = resultFile.resolveSibling(resultFile.getFileName() + ".log");
        try
        {
            Files.createDirectories(resultFile.getParent());
            final Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new GateException(side + ": JMH did not finish within " + timeoutSeconds + " s; log: " + log);
            }
            if (process.exitValue() != 0)
            {
                throw new GateException(side + ": JMH exited with status " + process.exitValue() + "; log: " + log);
            }
            final Map<String, Double> scores = new LinkedHashMap<>();
            for (final JmhResults.Benchmark b : JmhResults.read(resultFile).benchmarks())
            {
                scores.put("jmh." + b.key(), b.score());
            }
            if (scores.isEmpty())
            {
                throw new GateException(side + ": JMH ran no benchmark matching " + suite.jmhInclude() + "; log: "
                    + log);
            }
            return scores;
        }
        catch (final IOException ex)
        {
            throw new GateException(side + ": JMH failed: " + ex.getMessage(), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new GateException(side + ": interrupted in JMH", ex);
        }
    }

    /** The java of this JVM: both builds' forks run on the JDK the gate runs on. */
    static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
