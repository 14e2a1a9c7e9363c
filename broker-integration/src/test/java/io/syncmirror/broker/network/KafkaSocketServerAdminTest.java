package io.syncmirror.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An unmodified Kafka Admin client against the socket server, with a handler that serves only Metadata. */
@Timeout(60)
class KafkaSocketServerAdminTest
{
    @Test
    void shouldAnswerAnAdminClientsDescribeClusterThroughMetadata() throws Exception
    {
        final FakeRequestHandler handler = new FakeRequestHandler()
            .serve(ApiKeys.METADATA, 0, ApiKeys.METADATA.latestVersion(false));
        try (KafkaSocketServer server = new KafkaSocketServer(List.of(new Listener("PLAINTEXT", "127.0.0.1", 0)),
            handler, SocketServerConfig.defaults().withNetworkThreads(1)))
        {
            final int port = server.start().get("PLAINTEXT").getPort();
            handler.brokers(List.of(new Node(3, "127.0.0.1", port)));
            try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000)))
            {
                final DescribeClusterResult cluster = admin.describeCluster();
                assertEquals(FakeRequestHandler.CLUSTER_ID, cluster.clusterId().get(20, TimeUnit.SECONDS));
                final Collection<Node> nodes = cluster.nodes().get(20, TimeUnit.SECONDS);
                assertEquals(1, nodes.size());
                final Node node = nodes.iterator().next();
                assertEquals(3, node.id());
                assertEquals(port, node.port());
                assertEquals(3, cluster.controller().get(20, TimeUnit.SECONDS).id());
            }
        }
    }
}
