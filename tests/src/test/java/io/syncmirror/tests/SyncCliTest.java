package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorType;
import io.syncmirror.tools.ClusterMirrorsCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster mirrors command's sync options end to end. The command probes the source first (Fetch v20 served,
 * {@code mirror.sync.version} finalized), so these need a source broker that advertises both.
 */
@Timeout(180)
class SyncCliTest
{
    private static final String MIRROR = "cli-sync";

    @AutoClose
    private static MirrorClusters clusters;

    private record Result(int exit, String out, String err)
    {
    }

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
        clusters.createMirror(MIRROR);
    }

    @Test
    @DisplayName("SI-01 SI-16 --add --sync, --describe, --alter --async and --alter --sync through the command "
        + "against a sync-capable source: the desired type is set and the topic follows it")
    void shouldManageTheMirrorTypeThroughTheCommand() throws Exception
    {
        final String topic = "cli-sync-topic";
        clusters.createSourceTopic(topic, 2);
        final String bootstrap = clusters.destination().bootstrapServers();

        Result result = run("--bootstrap-server", bootstrap, "--add", "--mirror", MIRROR, "--topics", topic, "--sync");
        assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.toString());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        result = run("--bootstrap-server", bootstrap, "--describe", "--mirror", MIRROR);
        assertTrue(result.out().contains("Topic " + topic + ": desired SYNC, effective SYNC"), result.toString());

        result = run("--bootstrap-server", bootstrap, "--alter", "--mirror", MIRROR, "--topics", topic, "--async");
        assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.toString());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.ASYNC, MirrorType.ASYNC, 10_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, false, 10_000);

        result = run("--bootstrap-server", bootstrap, "--alter", "--mirror", MIRROR, "--topics", topic, "--sync");
        assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.toString());
        assertEquals(MirrorType.SYNC.id(), SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow()
            .desiredMirrorType());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
    }

    private static Result run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            exit = ClusterMirrorsCommand.run(args, outStream, errStream);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
