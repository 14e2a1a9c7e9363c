package io.syncmirror.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mirror operations as an operator runs them: {@code bin/kafka-cluster-mirrors.sh} in a process of its own,
 * its exit status and output returned. Stateless; each call is one run of the command.
 */
final class MirrorCli
{
    private static final long TIMEOUT_S = 90;

    /** What one run of the command printed and its exit status. */
    record Result(List<String> args, int exitStatus, String stdout, String stderr)
    {
        @Override
        public String toString()
        {
            return "kafka-cluster-mirrors.sh " + String.join(" ", args) + " -> exit " + exitStatus + "\nstdout: " +
                stdout.strip() + "\nstderr: " + stderr.strip();
        }
    }

    private MirrorCli()
    {
    }

    /** Runs the command with {@code args}; the test fails if it does not end within its timeout. */
    static Result run(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add("bash");
        command.add(ProcessCluster.repositoryRoot().resolve("bin/kafka-cluster-mirrors.sh").toString());
        command.addAll(List.of(args));
        final Path out = Files.createTempFile("mirror-cli", ".out");
        final Path err = Files.createTempFile("mirror-cli", ".err");
        try
        {
            final Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
            final long timeoutS = timeoutSeconds(args);
            if (!process.waitFor(timeoutS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new AssertionError("kafka-cluster-mirrors.sh " + String.join(" ", args) + " hung for " +
                    timeoutS + " s: " + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(List.of(args), process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The hang guard: {@value #TIMEOUT_S} s, or the command's own --command-timeout-ms and a margin when longer. */
    private static long timeoutSeconds(final String... args)
    {
        for (int i = 0; i + 1 < args.length; i++)
        {
            if (args[i].equals("--command-timeout-ms"))
            {
                return Math.max(TIMEOUT_S, Long.parseLong(args[i + 1]) / 1000 + 30);
            }
        }
        return TIMEOUT_S;
    }

    /** Runs the command and fails the test unless it exits 0. */
    static Result ok(final String... args) throws IOException, InterruptedException
    {
        final Result result = run(args);
        assertEquals(0, result.exitStatus(), result::toString);
        return result;
    }

    /**
     * {@code --create}: a mirror on the destination of the topics of {@code source}, with the destination
     * operator's {@code --command-config} and the source cluster's mirror-link settings as
     * {@code --source-config-file} when the clusters are secured.
     */
    static void create(final ProcessCluster destination, final String mirror, final ProcessCluster source)
        throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(List.of("--bootstrap-server", destination.bootstrapServers(),
            "--create", "--mirror", mirror, "--source-bootstrap-server", source.bootstrapServers()));
        args.addAll(destination.commandConfigArgs());
        if (!source.security().plaintext())
        {
            final Path link = Files.createTempFile("mirror-link", ".properties");
            try
            {
                ClusterSecurity.write(link, source.security().linkConfig());
                args.addAll(List.of("--source-config-file", link.toString()));
                ok(args.toArray(String[]::new));
            }
            finally
            {
                Files.deleteIfExists(link);
            }
            return;
        }
        ok(args.toArray(String[]::new));
    }

    /**
     * {@code --add}, with {@code --sync} when asked; the probe that {@code --sync} makes of {@code source} gets the
     * source operator's settings ({@code --source-command-config}) when it is secured.
     */
    static void add(final ProcessCluster destination, final String mirror, final String topics, final boolean sync,
        final ProcessCluster source) throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(List.of("--bootstrap-server", destination.bootstrapServers(),
            "--add", "--mirror", mirror, "--topics", topics));
        args.addAll(destination.commandConfigArgs());
        if (sync)
        {
            args.add("--sync");
            final List<String> sourceConfig = source.commandConfigArgs();
            if (!sourceConfig.isEmpty())
            {
                args.addAll(List.of("--source-command-config", sourceConfig.get(1)));
            }
        }
        final Result result = ok(args.toArray(String[]::new));
        assertTrue(!result.stderr().contains("could not probe the source"),
            () -> "the --sync probe did not reach the source: " + result);
    }

    /** {@code --stop}: fails the topics over to writable topics of the destination. */
    static void failOver(final ProcessCluster destination, final String mirror, final String topics)
        throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(List.of("--bootstrap-server", destination.bootstrapServers(),
            "--stop", "--mirror", mirror, "--topics", topics));
        args.addAll(destination.commandConfigArgs());
        ok(args.toArray(String[]::new));
    }

    /** {@code --release-sync}, run against the source: drops the mirror's sync gate on the topics. */
    static void releaseSync(final ProcessCluster source, final String mirror, final String topics)
        throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(List.of("--bootstrap-server", source.bootstrapServers(),
            "--release-sync", "--mirror", mirror, "--topics", topics));
        args.addAll(source.commandConfigArgs());
        final Result result = ok(args.toArray(String[]::new));
        assertTrue(!result.stdout().isBlank(), () -> "--release-sync printed nothing: " + result);
    }
}
