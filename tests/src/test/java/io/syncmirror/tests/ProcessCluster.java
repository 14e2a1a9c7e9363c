package io.syncmirror.tests;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster of broker processes started as a user starts them: {@code bin/syncmirror-server.sh} with the repo's
 * {@code config/cluster-3/broker-N.properties}, rewritten only where a test must differ (loopback ports picked
 * free, log directories under the test's directory) and with the test's overrides on top. As in the example, the
 * first three nodes are controller voters beside their broker role (a cluster of one or two has one voter, node 1;
 * nodes past three are brokers only), each with a CONTROLLER listener of its own, so the cluster outlives the
 * loss of any one node. Each broker can be SIGKILLed, paused (SIGSTOP) and resumed (SIGCONT), stopped cleanly
 * (SIGTERM: the broker's controlled shutdown) and started again on its log directory.
 *
 * <p>Not thread-safe: the test's thread owns it. {@link #close()} kills whatever still runs, paused or not.
 */
final class ProcessCluster implements AutoCloseable
{
    /** The example's ports, rewritten to free ones: broker N listens on 9091 + N, its controller on 9191 + N. */
    private static final int EXAMPLE_FIRST_PORT = 9092;
    private static final int EXAMPLE_FIRST_CONTROLLER_PORT = 9192;
    private static final long START_TIMEOUT_MS = 90_000;
    /** Each broker's heap unless a test says otherwise: what a few thousand partitions need. */
    static final String DEFAULT_HEAP = "-Xmx768m";

    private final String name;
    private final Path dir;
    private final int[] ports;
    private final int[] controllerPorts;
    private final int voters;
    private final Path[] propertiesFiles;
    private final Process[] processes;
    private final int[] launches;
    private final String heapOptions;
    private final ClusterSecurity security;
    /** The operator's client settings as a file, for the CLI's --command-config; null in plaintext. */
    private final Path commandConfig;

    /**
     * Writes the properties of {@code size} brokers (at most the example's 3 templates; brokers past 3 follow
     * broker 3's) under {@code dir/name}; {@link #launch()} starts them.
     */
    ProcessCluster(final String name, final Path dir, final int size, final Map<String, String> overrides,
        final String heapOptions) throws IOException
    {
        this(name, dir, size, overrides, heapOptions, ClusterSecurity.PLAINTEXT);
    }

    /** The same, every broker secured as {@code security} says (its broker settings below the overrides). */
    ProcessCluster(final String name, final Path dir, final int size, final Map<String, String> overrides,
        final String heapOptions, final ClusterSecurity security) throws IOException
    {
        this.name = name;
        this.security = security;
        this.dir = Files.createDirectories(dir.resolve(name));
        this.ports = new int[size];
        this.controllerPorts = new int[size];
        // A static quorum has 1, 3 or 5 voters: three where the example's three nodes exist, else node 1 alone.
        this.voters = size >= 3 ? 3 : 1;
        this.propertiesFiles = new Path[size];
        this.processes = new Process[size];
        this.launches = new int[size];
        this.heapOptions = heapOptions;
        for (int i = 0; i < size; i++)
        {
            ports[i] = listenerPort();
            controllerPorts[i] = i < voters ? listenerPort() : -1;
        }
        final Map<String, String> config = new HashMap<>(security.brokerConfig());
        config.putAll(overrides);
        for (int node = 1; node <= size; node++)
        {
            propertiesFiles[node - 1] = write(node, properties(node, config));
        }
        this.commandConfig = security.plaintext() ? null :
            ClusterSecurity.write(this.dir.resolve("operator-client.properties"), security.operatorConfig());
    }

    /** A free loopback port below the kernel's ephemeral range, never one handed out before in this JVM. */
    static int listenerPort()
    {
        return io.syncmirror.broker.cluster.ListenerPorts.next();
    }

    /**
     * A cluster of {@code size} brokers with the fast mirroring settings of the tests and {@code overrides} on
     * top, launched (not yet waited for: {@link #awaitUp()}); a launch that fails part-way kills what it started.
     */
    static ProcessCluster launched(final String name, final Path dir, final int size,
        final Map<String, String> overrides) throws IOException
    {
        final Map<String, String> config = new HashMap<>(Mirrors.FAST);
        config.putAll(overrides);
        final ProcessCluster cluster = new ProcessCluster(name, dir, size, config, DEFAULT_HEAP);
        try
        {
            return cluster.launch();
        }
        catch (final IOException | RuntimeException e)
        {
            cluster.close();
            throw e;
        }
    }

    /** The repository's root: the directory above this module that holds {@code bin/syncmirror-server.sh}. */
    static Path repositoryRoot()
    {
        Path candidate = Path.of("").toAbsolutePath();
        while (candidate != null && !Files.isRegularFile(candidate.resolve("bin/syncmirror-server.sh")))
        {
            candidate = candidate.getParent();
        }
        if (candidate == null)
        {
            throw new IllegalStateException("no bin/syncmirror-server.sh above " + Path.of("").toAbsolutePath());
        }
        // The script would build a missing broker itself: inside a test that is a surprise, so say it instead.
        if (!Files.isDirectory(candidate.resolve("broker-integration/target/lib")))
        {
            throw new IllegalStateException("broker-integration is not packaged: run mvn package (or verify) from "
                + candidate + " first");
        }
        return candidate;
    }

    private Properties properties(final int node, final Map<String, String> overrides) throws IOException
    {
        final Path template = repositoryRoot().resolve("config/cluster-3/broker-" + Math.min(node, 3) +
            ".properties");
        final Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(template, StandardCharsets.UTF_8))
        {
            props.load(in);
        }
        final boolean voter = node <= voters;
        props.put("node.id", Integer.toString(node));
        props.put("process.roles", voter ? "broker,controller" : "broker");
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port(node) +
            (voter ? ",CONTROLLER://127.0.0.1:" + controllerPorts[node - 1] : ""));
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port(node));
        props.put("controller.listener.names", "CONTROLLER");
        final StringJoiner quorum = new StringJoiner(",");
        for (int v = 1; v <= voters; v++)
        {
            quorum.add(v + "@127.0.0.1:" + controllerPorts[v - 1]);
        }
        props.put("controller.quorum.voters", quorum.toString());
        props.put("log.dirs", dir.resolve("broker-" + node + "-logs").toString());
        // A cluster smaller than the example's cannot hold its replication factors.
        if (ports.length < 3)
        {
            final String rf = Integer.toString(ports.length);
            for (final String key : List.of("default.replication.factor", "offsets.topic.replication.factor",
                "transaction.state.log.replication.factor", "mirror.state.topic.replication.factor"))
            {
                props.put(key, rf);
            }
            props.put("min.insync.replicas", "1");
            props.put("transaction.state.log.min.isr", "1");
        }
        overrides.forEach(props::put);
        // The template's ports must all have been rewritten: a stray 909x would join the example's cluster.
        for (final String key : props.stringPropertyNames())
        {
            for (int example = 0; example < 3; example++)
            {
                for (final int examplePort : new int[] {EXAMPLE_FIRST_PORT + example,
                    EXAMPLE_FIRST_CONTROLLER_PORT + example})
                {
                    if (props.getProperty(key).contains("127.0.0.1:" + examplePort) && !isOurs(examplePort))
                    {
                        throw new IllegalStateException(key + "=" + props.getProperty(key) +
                            " names an example port");
                    }
                }
            }
        }
        return props;
    }

    private boolean isOurs(final int port)
    {
        for (int i = 0; i < ports.length; i++)
        {
            if (ports[i] == port || controllerPorts[i] == port)
            {
                return true;
            }
        }
        return false;
    }

    private Path write(final int node, final Properties props) throws IOException
    {
        final Path file = dir.resolve("broker-" + node + ".properties");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            props.store(out, name + " broker " + node + ": config/cluster-3 with a test's ports, dirs and overrides");
        }
        return file;
    }

    String name()
    {
        return name;
    }

    int size()
    {
        return ports.length;
    }

    ClusterSecurity security()
    {
        return security;
    }

    /** The CLI's {@code --command-config} and its file for this cluster's operator; none in plaintext. */
    List<String> commandConfigArgs()
    {
        return commandConfig == null ? List.of() : List.of("--command-config", commandConfig.toString());
    }

    /** An admin client of this cluster with the operator's security settings. */
    Admin admin()
    {
        return admin(bootstrapServers());
    }

    /** The same on {@code bootstrap} (some of this cluster's brokers). */
    Admin admin(final String bootstrap)
    {
        return Clients.admin(bootstrap, security.clientOverrides());
    }

    int port(final int node)
    {
        return ports[node - 1];
    }

    /** The CONTROLLER listener's port of voter {@code node}. */
    int controllerPort(final int node)
    {
        return controllerPorts[node - 1];
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

    /** The bootstrap list without {@code node}: for clients that must not wait on a paused or dead broker. */
    String bootstrapServersExcept(final int node)
    {
        final StringJoiner joiner = new StringJoiner(",");
        for (int other = 1; other <= ports.length; other++)
        {
            if (other != node)
            {
                joiner.add("127.0.0.1:" + port(other));
            }
        }
        return joiner.toString();
    }

    /** The process id of a running broker, for tools that attach to it (JMX). */
    long pid(final int node)
    {
        return processes[node - 1].pid();
    }

    /** Launches every broker without waiting, so that several clusters boot at once; then {@link #awaitUp()}. */
    ProcessCluster launch() throws IOException
    {
        for (int node = 1; node <= ports.length; node++)
        {
            launch(node);
        }
        return this;
    }

    /** Launches one broker on its log directory (again, after it was killed or stopped). */
    void launch(final int node) throws IOException
    {
        final Process old = processes[node - 1];
        if (old != null && old.isAlive())
        {
            throw new IllegalStateException(name + " broker " + node + " is still running");
        }
        final int run = ++launches[node - 1];
        final ProcessBuilder builder = new ProcessBuilder("bash",
            repositoryRoot().resolve("bin/syncmirror-server.sh").toString(), propertiesFiles[node - 1].toString())
            .redirectOutput(logFile(node, run, "out").toFile())
            .redirectError(logFile(node, run, "err").toFile());
        builder.environment().put("SYNCMIRROR_HEAP_OPTS", heapOptions);
        processes[node - 1] = builder.start();
    }

    private Path logFile(final int node, final int run, final String stream)
    {
        return dir.resolve("broker-" + node + "-run-" + run + "." + stream);
    }

    /** The end of the broker's latest stderr, for failure messages. */
    String stderrTail(final int node)
    {
        final Path file = logFile(node, launches[node - 1], "err");
        try (InputStream in = Files.newInputStream(file))
        {
            final byte[] bytes = in.readAllBytes();
            final int from = Math.max(0, bytes.length - 4000);
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            return "(no stderr: " + e + ")";
        }
    }

    /** Waits until every running broker is registered with the controller; fails if one exits. */
    ProcessCluster awaitUp() throws InterruptedException
    {
        final List<Integer> expected = new ArrayList<>();
        for (int node = 1; node <= ports.length; node++)
        {
            if (processes[node - 1] != null)
            {
                expected.add(node);
            }
        }
        awaitNodes(expected);
        return this;
    }

    /** Waits until exactly {@code nodes} are registered and unfenced (DescribeCluster lists them). */
    void awaitNodes(final List<Integer> nodes) throws InterruptedException
    {
        try (Admin admin = admin())
        {
            Clients.awaitCondition(() ->
            {
                for (final int node : nodes)
                {
                    final Process process = processes[node - 1];
                    assertTrue(process.isAlive(), () -> name + " broker " + node + " exited with " +
                        process.exitValue() + ": " + stderrTail(node));
                }
                try
                {
                    final List<Integer> live = new ArrayList<>(admin.describeCluster().nodes()
                        .get(2, TimeUnit.SECONDS).stream().map(n -> n.id()).toList());
                    live.sort(null);
                    return live.equals(nodes.stream().sorted().toList());
                }
                catch (final Exception ex)
                {
                    return false;
                }
            }, START_TIMEOUT_MS, name + ": brokers " + nodes + " never all registered");
        }
    }

    /** SIGKILL of one broker, waiting until it is gone. */
    void kill(final int node) throws InterruptedException
    {
        final Process process = processes[node - 1];
        process.destroyForcibly();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), name + " broker " + node + " survived SIGKILL");
    }

    /**
     * SIGKILLs every broker at once: the signals all go out before the first wait, so that no broker outlives the
     * others by more than the time to send a signal.
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
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), name + ": a broker survived SIGKILL");
        }
    }

    /**
     * SIGTERM: the broker's shutdown hook runs its controlled shutdown (the controller moves its leaderships
     * away first), then it exits; waits for the exit.
     */
    void stopCleanly(final int node) throws InterruptedException
    {
        final Process process = processes[node - 1];
        process.destroy();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), () -> name + " broker " + node +
            " did not stop within 60 s of SIGTERM: " + stderrTail(node));
    }

    /** SIGSTOP: the broker freezes with its sockets open, as a long GC pause or a hung host would. */
    void pause(final int node) throws IOException, InterruptedException
    {
        signal(node, "STOP");
    }

    /** SIGCONT of a paused broker. */
    void resume(final int node) throws IOException, InterruptedException
    {
        signal(node, "CONT");
    }

    private void signal(final int node, final String signal) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid(node)))
            .redirectErrorStream(true).start();
        final String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0,
            () -> "kill -" + signal + " of " + name + " broker " + node + " failed: " + output);
    }

    @Override
    public void close()
    {
        BrokerProcesses.destroyAll(Arrays.asList(processes));
    }
}
