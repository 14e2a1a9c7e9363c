package io.syncmirror.broker.server;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BrokerConfigTest
{
    private static Map<String, String> minimal()
    {
        final Map<String, String> props = new HashMap<>();
        props.put("node.id", "3");
        props.put("controller.quorum.bootstrap.servers", "127.0.0.1:9092");
        return props;
    }

    @Test
    void shouldTakeKafkasDefaultsForWhatIsNotSet()
    {
        final BrokerConfig config = new BrokerConfig(minimal());
        assertEquals(3, config.nodeId());
        assertFalse(config.runsController());
        assertEquals(List.of(new BrokerConfig.Listener("PLAINTEXT", "127.0.0.1", 9092)), config.listeners());
        assertEquals(config.listeners(), config.advertisedListeners());
        assertEquals(30_000L, config.replicaConfig().replicaLagTimeMaxMs());
        assertEquals(1, config.replicaConfig().defaultMinIsr());
        assertTrue(config.durableStorage());
        assertEquals(List.of(Path.of("/tmp/syncmirror-logs")), config.logDirs());
    }

    @Test
    void shouldReadListenersControllerRoleAndLogDefaults()
    {
        final Map<String, String> props = minimal();
        props.put("process.roles", "broker,controller");
        props.put("listeners", "PLAINTEXT://127.0.0.1:9093,INTERNAL://0.0.0.0:9094");
        props.put("advertised.listeners", "PLAINTEXT://broker-3.example:9093");
        props.put("log.dirs", "/data/a,/data/b");
        props.put("log.retention.hours", "2");
        props.put("min.insync.replicas", "2");
        final BrokerConfig config = new BrokerConfig(props);
        assertTrue(config.runsController());
        assertEquals(2, config.listeners().size());
        assertEquals(new BrokerConfig.Listener("INTERNAL", "0.0.0.0", 9094), config.listeners().get(1));
        assertEquals("broker-3.example", config.advertisedListeners().get(0).host());
        assertEquals(List.of(Path.of("/data/a"), Path.of("/data/b")), config.logDirs());
        assertEquals("7200000", config.logDefaults().get("retention.ms"));
        assertEquals("2", config.logDefaults().get("min.insync.replicas"));
    }

    @Test
    void shouldRefuseBadValuesNamingTheKey()
    {
        final Map<String, String> noNodeId = minimal();
        noNodeId.remove("node.id");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(noNodeId)).getMessage()
            .contains("node.id"));

        final Map<String, String> badPort = minimal();
        badPort.put("listeners", "PLAINTEXT://127.0.0.1:ninety");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(badPort)).getMessage()
            .contains("listeners"));

        final Map<String, String> twoControllers = minimal();
        twoControllers.put("controller.quorum.bootstrap.servers", "a:1,b:2");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(twoControllers)).getMessage()
            .contains("controller.quorum.bootstrap.servers"));

        final Map<String, String> waiters = minimal();
        waiters.put("syncmirror.produce.waiters.per.partition", "100");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(waiters)).getMessage()
            .contains("power of two"));

        final Map<String, String> storage = minimal();
        storage.put("syncmirror.log.storage", "tape");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(storage)).getMessage()
            .contains("syncmirror.log.storage"));
    }

    @Test
    void shouldGiveTheCoordinatorsTheirKafkaKeys()
    {
        final Map<String, String> props = minimal();
        props.put("transaction.state.log.num.partitions", "7");
        props.put("offsets.topic.replication.factor", "2");
        props.put("transactional.id.expiration.ms", "60000");
        final var coordinators = new BrokerConfig(props).coordinatorConfig();
        assertEquals(3, coordinators.brokerId());
        assertEquals(7, coordinators.transactionLogPartitions());
        assertEquals(2, coordinators.offsetsTopicReplicationFactor());
        assertEquals(60_000L, coordinators.transactionalIdExpirationMs());
        assertEquals(50, coordinators.offsetsTopicPartitions());
        assertEquals(4096, coordinators.offsetMetadataMaxBytes());

        final Map<String, String> bad = minimal();
        bad.put("offsets.topic.num.partitions", "many");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(bad)).getMessage()
            .contains("offsets.topic.num.partitions"));
    }
}
