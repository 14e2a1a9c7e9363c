package io.syncmirror.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.FakeMirrorBroker;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --describe} of topics that take part in synchronous mirroring: desired, effective, recovery. */
@Timeout(30)
class ClusterMirrorsDescribeSyncTest
{
    private static DescribeClusterMirrorsResponseData.MirrorTopic topic(final String name, final MirrorType desired,
        final MirrorType effective, final boolean recovery, final String status)
    {
        return new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicName(name)
            .setDesiredMirrorType(desired.id()).setEffectiveMirrorType(effective.id()).setRecoveryPending(recovery)
            .setStatusMessage(status).setPartitions(List.of(new DescribeClusterMirrorsResponseData.MirrorPartition()
                .setPartitionIndex(0).setState((byte)2).setSourceOffset(5).setDestinationOffset(5).setLag(0)));
    }

    @Test
    @DisplayName("SU-03 --describe prints each sync topic's desired and effective types and a pending recovery, and "
        + "nothing more for an asynchronous topic")
    void shouldPrintTheMirrorTypes() throws IOException
    {
        final DescribeClusterMirrorsResponseData response = new DescribeClusterMirrorsResponseData().setMirrors(
            List.of(new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("dr")
                .setSourceBootstrapServers("src:9092").setIncludeTopics(List.of()).setExcludeTopics(List.of())
                .setTopics(List.of(
                    topic("orders", MirrorType.SYNC, MirrorType.SYNC, false, null),
                    topic("payments", MirrorType.SYNC, MirrorType.ASYNC, true,
                        "released by source — recovery in flight"),
                    topic("audit", MirrorType.ASYNC, MirrorType.ASYNC, false, null),
                    new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicName("odd")
                        .setDesiredMirrorType((byte)5).setPartitions(List.of())))));
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, response)))
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int exit = ClusterMirrorsCommand.run(new String[] {"--bootstrap-server", "127.0.0.1:" + broker.port(),
                "--describe", "--mirror", "dr"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
            final String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(ClusterMirrorsCommand.EXIT_OK, exit, err.toString(StandardCharsets.UTF_8));
            final List<String> lines = text.lines().toList();
            assertTrue(lines.contains("Topic orders: desired SYNC, effective SYNC"), text);
            assertTrue(lines.contains("Topic payments: desired SYNC, effective ASYNC, recovery pending"), text);
            assertTrue(lines.contains("Topic payments: released by source — recovery in flight"), text);
            assertTrue(lines.contains("Topic odd: desired TYPE_5, effective ASYNC"), text);
            assertFalse(text.contains("Topic audit"), text);
        }
    }
}
