package io.syncmirror.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Brokers as their own JVM processes ({@code io.syncmirror.broker.server.SyncMirrorServer <server.properties>}),
 * started with this JVM's classpath and the project's JVM flags, their output in files under a test directory.
 * {@link #close()} kills whatever is still running. Not thread-safe: one test's thread.
 */
final class BrokerProcesses implements AutoCloseable
{
    private static final String MAIN_CLASS = "io.syncmirror.broker.server.SyncMirrorServer";

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();

    BrokerProcesses(final Path dir)
    {
        this.dir = dir;
    }

    static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A single-node cluster's properties on loopback: broker and the one voter of its metadata quorum, its
     * CONTROLLER listener on a port of its own.
     */
    static Properties serverProperties(final int port, final Path logDir)
    {
        final int controllerPort = freePort();
        final Properties props = new Properties();
        props.put("node.id", "1");
        props.put("process.roles", "broker,controller");
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("log.dirs", logDir.toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "3");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "3");
        props.put("broker.heartbeat.interval.ms", "500");
        props.put("broker.session.timeout.ms", "3000");
        return props;
    }

    Path write(final String name, final Properties props) throws IOException
    {
        final Path file = dir.resolve(name);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            props.store(out, "server.properties for a broker process under test");
        }
        return file;
    }

    /** Starts the broker main in a new JVM; its stdout and stderr go to files named after {@code name}. */
    Process launch(final String name, final Path propertiesFile) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String flag : System.getProperty("syncmirror.jvm.flags", "").trim().split("\\s+"))
        {
            if (!flag.isEmpty())
            {
                command.add(flag);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MAIN_CLASS);
        command.add(propertiesFile.toString());
        final Process process = new ProcessBuilder(command)
            .redirectOutput(dir.resolve(name + ".out").toFile())
            .redirectError(dir.resolve(name + ".err").toFile())
            .start();
        processes.add(process);
        return process;
    }

    String stderr(final String name) throws IOException
    {
        return Files.readString(dir.resolve(name + ".err"), StandardCharsets.UTF_8);
    }

    /** Waits until the broker process answers Admin requests with itself registered. */
    void awaitServing(final Process process, final String name, final String bootstrap) throws InterruptedException
    {
        try (Admin admin = Clients.admin(bootstrap))
        {
            Clients.awaitCondition(() ->
            {
                assertTrue(process.isAlive(), () -> "the broker process exited with " + process.exitValue() + ": "
                    + stderrQuietly(name));
                try
                {
                    return admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).size() == 1;
                }
                catch (final Exception ex)
                {
                    return false;
                }
            }, 60_000, "the broker process never served Admin requests");
        }
    }

    private String stderrQuietly(final String name)
    {
        try
        {
            return stderr(name);
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    @Override
    public void close()
    {
        destroyAll(processes);
    }

    /** SIGKILLs each process still alive (nulls skipped) and waits up to 30 s for each; stops if interrupted. */
    static void destroyAll(final List<Process> processes)
    {
        for (final Process process : processes)
        {
            if (process != null && process.isAlive())
            {
                process.destroyForcibly();
                try
                {
                    process.waitFor(30, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
