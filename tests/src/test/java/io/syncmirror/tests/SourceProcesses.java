package io.syncmirror.tests;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source cluster of the reference broker whose brokers are JVM processes of their own (node 1 is also the
 * controller), so that a test can SIGKILL all of them at once and restart them on the same log directories. Not
 * thread-safe: the test's thread owns it; {@link #close()} kills whatever still runs.
 */
final class SourceProcesses implements AutoCloseable
{
    private final BrokerProcesses launcher;
    private final Path dir;
    private final int[] ports;
    private final Path[] propertiesFiles;
    private final Process[] processes;
    private int launches;

    /**
     * Writes the properties of {@code size} brokers under {@code dir}, each with {@code overrides} on top of the
     * fast mirroring settings; {@link #start()} launches them.
     */
    SourceProcesses(final Path dir, final int size, final Map<String, String> overrides) throws IOException
    {
        this.launcher = new BrokerProcesses(dir);
        this.dir = dir;
        this.ports = new int[size];
        this.propertiesFiles = new Path[size];
        this.processes = new Process[size];
        for (int i = 0; i < size; i++)
        {
            ports[i] = BrokerProcesses.freePort();
        }
        for (int i = 0; i < size; i++)
        {
            propertiesFiles[i] = launcher.write("source-" + (i + 1) + ".properties", properties(i + 1, overrides));
        }
    }

    /**
     * Writes the brokers' properties and launches them without waiting (see {@link #launch()}); a launch that fails
     * part-way kills what it started.
     */
    static SourceProcesses launched(final Path dir, final int size, final Map<String, String> overrides)
        throws IOException
    {
        final SourceProcesses source = new SourceProcesses(dir, size, overrides);
        try
        {
            source.launch();
            return source;
        }
        catch (final IOException | RuntimeException e)
        {
            source.close();
            throw e;
        }
    }

    private Properties properties(final int nodeId, final Map<String, String> overrides)
    {
        final Properties props = BrokerProcesses.serverProperties(ports[nodeId - 1],
            dir.resolve("source-" + nodeId + "-logs"));
        props.put("node.id", Integer.toString(nodeId));
        props.put("process.roles", nodeId == 1 ? "broker,controller" : "broker");
        props.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + ports[0]);
        final String rf = Integer.toString(Math.min(3, ports.length));
        props.put("offsets.topic.replication.factor", rf);
        props.put("transaction.state.log.replication.factor", rf);
        props.put("mirror.state.topic.replication.factor", rf);
        props.put("replica.fetch.backoff.ms", "100");
        Mirrors.FAST.forEach(props::put);
        overrides.forEach(props::put);
        return props;
    }

    int size()
    {
        return ports.length;
    }

    int port(final int nodeId)
    {
        return ports[nodeId - 1];
    }

    String bootstrapServers()
    {
        final StringJoiner joiner = new StringJoiner(",");
        for (final int port : ports)
        {
            joiner.add("127.0.0.1:" + port);
        }
        return joiner.toString();
    }

    /** Launches every broker (again, after {@link #killAll()}, on the same log directories) and waits for them. */
    void start() throws IOException, InterruptedException
    {
        launch();
        awaitRegistered();
    }

    /**
     * Launches every broker without waiting, so that the test can start other things while the JVMs boot; then
     * {@link #awaitRegistered()}.
     */
    void launch() throws IOException
    {
        launches++;
        for (int i = 0; i < ports.length; i++)
        {
            processes[i] = launcher.launch(name(i + 1), propertiesFiles[i]);
        }
    }

    /** Waits until every launched broker is registered with the controller; fails if one exits. */
    void awaitRegistered() throws InterruptedException
    {
        try (Admin admin = Clients.admin(bootstrapServers()))
        {
            Clients.awaitCondition(() ->
            {
                for (int i = 0; i < processes.length; i++)
                {
                    final int node = i + 1;
                    final Process process = processes[i];
                    assertTrue(process.isAlive(), () -> "source broker " + node + " exited with " +
                        process.exitValue() + ": " + stderrQuietly(node));
                }
                try
                {
                    return admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).size() == processes.length;
                }
                catch (final Exception ex)
                {
                    return false;
                }
            }, 60_000, "the source broker processes never all registered");
        }
    }

    private String name(final int nodeId)
    {
        return "source-" + nodeId + "-run-" + launches;
    }

    private String stderrQuietly(final int nodeId)
    {
        try
        {
            return launcher.stderr(name(nodeId));
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    /**
     * SIGKILLs every broker process at once ({@link Process#destroyForcibly()} is SIGKILL on Linux), then waits
     * until each is gone; the kill signals go out before the first wait so that no broker outlives the others.
     */
    void killAll() throws InterruptedException
    {
        final List<Process> alive = new ArrayList<>();
        for (final Process process : processes)
        {
            if (process != null && process.isAlive())
            {
                process.destroyForcibly();
                alive.add(process);
            }
        }
        for (final Process process : alive)
        {
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "a source broker process survived SIGKILL");
        }
    }

    @Override
    public void close()
    {
        launcher.close();
    }
}
