package io.syncmirror.tests;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * One real Apache Kafka 4.4 node started in this JVM in KRaft combined mode (broker and controller), on 127.0.0.1,
 * with its log directory under a temp directory deleted by {@link #close()}: the reference that the
 * client-compatibility tests compare the reference broker with. Not thread-safe: one controlling thread.
 *
 * <p>Started as {@code benchmarks}' {@code KafkaReferenceCluster} starts its nodes (Kafka's storage
 * {@link Formatter}, then {@link KafkaRaftServer}), cut down to the one node a protocol comparison needs. The
 * broker listener and the controller listener are both reachable: Kafka advertises the broker-to-controller APIs
 * (BrokerRegistration, BrokerHeartbeat...) on the controller listener only.
 */
final class KafkaReferenceBroker implements AutoCloseable
{
    private static final String HOST = "127.0.0.1";
    private static final long STARTUP_TIMEOUT_MS = 120_000L;

    private final Path rootDir;
    private final KafkaRaftServer server;
    private final int brokerPort;
    private final int controllerPort;

    private KafkaReferenceBroker(final Path rootDir, final KafkaRaftServer server, final int brokerPort,
        final int controllerPort)
    {
        this.rootDir = rootDir;
        this.server = server;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
    }

    /** Formats and starts the node; returns once its startup has finished. */
    static KafkaReferenceBroker start() throws Exception
    {
        final Path rootDir = Files.createTempDirectory("syncmirror-kafka-ref-");
        final int brokerPort;
        final int controllerPort;
        try (ServerSocket broker = new ServerSocket(0, 1, InetAddress.getByName(HOST));
             ServerSocket controller = new ServerSocket(0, 1, InetAddress.getByName(HOST)))
        {
            brokerPort = broker.getLocalPort();
            controllerPort = controller.getLocalPort();
        }
        final Path logDir = Files.createDirectories(rootDir.resolve("node-0"));
        final Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "0");
        props.put("controller.quorum.voters", "0@" + HOST + ":" + controllerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listeners", "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" +
            controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        props.put("metadata.log.dir", logDir.toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("share.coordinator.state.topic.replication.factor", "1");
        props.put("share.coordinator.state.topic.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        final KafkaConfig config = KafkaConfig.fromProps(props, false);
        try (PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
        {
            new Formatter()
                .setPrintStream(quiet)
                .setClusterId(Uuid.randomUuid().toString())
                .setNodeId(0)
                .setControllerListenerName("CONTROLLER")
                .setMetadataLogDirectory(logDir.toString())
                .setDirectories(List.of(logDir.toString()))
                .run();
        }
        final KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        final ExecutorService starter = Executors.newSingleThreadExecutor();
        try
        {
            final Future<?> started = starter.submit(() ->
            {
                server.startup();
                return null;
            });
            started.get(STARTUP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final Exception | Error ex)
        {
            server.shutdown();
            server.awaitShutdown();
            deleteRecursively(rootDir);
            throw ex;
        }
        finally
        {
            starter.shutdownNow();
        }
        return new KafkaReferenceBroker(rootDir, server, brokerPort, controllerPort);
    }

    /** The port of the broker listener (PLAINTEXT). */
    int brokerPort()
    {
        return brokerPort;
    }

    /** The port of the controller listener (CONTROLLER). */
    int controllerPort()
    {
        return controllerPort;
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            server.shutdown();
            server.awaitShutdown();
        }
        finally
        {
            deleteRecursively(rootDir);
        }
    }

    private static void deleteRecursively(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
    }
}
