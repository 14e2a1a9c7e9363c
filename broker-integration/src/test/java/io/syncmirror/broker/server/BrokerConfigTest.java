package io.syncmirror.broker.server;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.DisplayName;
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
        props.put("controller.quorum.voters", "1@127.0.0.1:9093");
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
        props.put("controller.quorum.voters", "3@127.0.0.1:9095");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listeners", "PLAINTEXT://127.0.0.1:9093,INTERNAL://0.0.0.0:9094,CONTROLLER://127.0.0.1:9095");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("advertised.listeners", "PLAINTEXT://broker-3.example:9093");
        props.put("log.dirs", "/data/a,/data/b");
        props.put("log.retention.hours", "2");
        props.put("min.insync.replicas", "2");
        final BrokerConfig config = new BrokerConfig(props);
        assertTrue(config.runsController());
        assertEquals(3, config.listeners().size());
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

        final Map<String, String> badVoter = minimal();
        badVoter.put("controller.quorum.voters", "1@a:one");
        assertTrue(assertThrows(ConfigException.class, () -> new BrokerConfig(badVoter)).getMessage()
            .contains("controller.quorum.voters"));

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

    private static Map<String, String> voter(final int nodeId)
    {
        final Map<String, String> props = new HashMap<>();
        props.put("node.id", Integer.toString(nodeId));
        props.put("process.roles", "broker,controller");
        props.put("listeners", "PLAINTEXT://127.0.0.1:909" + nodeId + ",CONTROLLER://127.0.0.1:1909" + nodeId);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("controller.quorum.voters", "1@127.0.0.1:19091,2@127.0.0.1:19092,3@127.0.0.1:19093");
        return props;
    }

    @Test
    @org.junit.jupiter.api.DisplayName("a replicated controller reads Kafka's quorum keys; the controller listener "
        + "is served but never advertised")
    void shouldReadTheQuorumKeys()
    {
        final BrokerConfig config = new BrokerConfig(voter(2));
        assertEquals(List.of(1, 2, 3), List.copyOf(config.controllerVoters().keySet()));
        assertEquals(19092, config.controllerVoters().get(2).getPort());
        assertEquals(new BrokerConfig.Listener("CONTROLLER", "127.0.0.1", 19092), config.controllerListener());
        assertEquals(List.of(new BrokerConfig.Listener("PLAINTEXT", "127.0.0.1", 9092)), config.advertisedListeners());

        final Map<String, String> broker = new HashMap<>();
        broker.put("node.id", "7");
        broker.put("controller.quorum.voters", voter(1).get("controller.quorum.voters"));
        assertEquals(3, new BrokerConfig(broker).controllerVoters().size());
        assertFalse(new BrokerConfig(broker).runsController());
    }

    @Test
    @org.junit.jupiter.api.DisplayName("bad quorum settings are refused with the key and the reason")
    void shouldRefuseBadQuorumSettings()
    {
        final Map<String, Map<String, String>> cases = new java.util.LinkedHashMap<>();
        final Map<String, String> dynamic = voter(1);
        dynamic.put("controller.quorum.bootstrap.servers", "127.0.0.1:19091");
        cases.put("dynamic metadata quorums (KIP-853) are not supported", dynamic);
        final Map<String, String> even = voter(1);
        even.put("controller.quorum.voters", "1@127.0.0.1:19091,2@127.0.0.1:19092");
        cases.put("1, 3 or 5 voters", even);
        final Map<String, String> outsider = voter(1);
        outsider.put("node.id", "4");
        outsider.put("listeners", "PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:19094");
        cases.put("not among the voters", outsider);
        final Map<String, String> noListenerName = voter(1);
        noListenerName.remove("controller.listener.names");
        cases.put("its own listener", noListenerName);
        final Map<String, String> unknownListener = voter(1);
        unknownListener.put("controller.listener.names", "RAFT");
        cases.put("is not in listeners", unknownListener);
        final Map<String, String> wrongPort = voter(1);
        wrongPort.put("listeners", "PLAINTEXT://127.0.0.1:9091,CONTROLLER://127.0.0.1:29091");
        cases.put("binds 29091", wrongPort);
        final Map<String, String> malformed = voter(1);
        malformed.put("controller.quorum.voters", "1@127.0.0.1:19091,two@127.0.0.1:19092,3@127.0.0.1:19093");
        cases.put("not a number", malformed);
        final Map<String, String> noAt = voter(1);
        noAt.put("controller.quorum.voters", "127.0.0.1:19091");
        cases.put("expected id@host:port", noAt);
        final Map<String, String> brokerOnlyVoter = voter(1);
        brokerOnlyVoter.put("process.roles", "broker");
        cases.put("must include the controller role", brokerOnlyVoter);
        final Map<String, String> onlyController = voter(1);
        onlyController.put("listeners", "CONTROLLER://127.0.0.1:19091");
        cases.put("besides the controller's", onlyController);
        final Map<String, String> noQuorum = voter(1);
        noQuorum.remove("controller.quorum.voters");
        cases.put("required: the static metadata quorum", noQuorum);
        final Map<String, String> controllerOnly = voter(1);
        controllerOnly.put("process.roles", "controller");
        cases.put("(a controller-only node) is not supported", controllerOnly);
        final Map<String, String> unknownRole = voter(1);
        unknownRole.put("process.roles", "broker,observer");
        cases.put("unknown process role 'observer'", unknownRole);
        final Map<String, String> twice = voter(1);
        twice.put("process.roles", "broker,controller,broker");
        cases.put("duplicate role names", twice);
        final Map<String, String> noRole = voter(1);
        noRole.put("process.roles", "");
        cases.put("a node without the broker role", noRole);
        cases.forEach((reason, props) ->
        {
            final ConfigException refused = assertThrows(ConfigException.class, () -> new BrokerConfig(props), reason);
            assertTrue(refused.getMessage().contains(reason), reason + ": " + refused.getMessage());
        });
    }

    @Test
    @DisplayName("SASL settings it cannot honour (a mechanism it does not serve, the brokers' own login to a SASL "
        + "inter-broker listener without a served mechanism or a login module, re-authentication) and an SSL listener "
        + "without a keystore stop the broker at startup naming the key; unmapped names are refused as Kafka does")
    void shouldRefuseListenersItCannotServeSecurely()
    {
        for (final String listeners : List.of("SASL_SSL://127.0.0.1:9093", "SASL_PLAINTEXT://127.0.0.1:9093"))
        {
            final Map<String, String> props = minimal();
            props.put("listeners", listeners);
            props.put("ssl.keystore.location", "/broker.p12");
            props.put("sasl.enabled.mechanisms", "PLAIN");
            final ConfigException e = assertThrows(ConfigException.class, () -> new BrokerConfig(props), listeners);
            assertTrue(e.getMessage().contains("sasl.mechanism.inter.broker.protocol"), e.getMessage());
            props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            final String jaasKey = "listener.name." + listeners.substring(0, listeners.indexOf(':')).toLowerCase()
                + ".plain.sasl.jaas.config";
            final ConfigException noLogin = assertThrows(ConfigException.class, () -> new BrokerConfig(props));
            assertTrue(noLogin.getMessage().contains(jaasKey), noLogin.getMessage());
            props.put(jaasKey, "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"b\" "
                + "password=\"p\" user_b=\"p\";");
            final Map<String, Object> client = new BrokerConfig(props).security().clientConfigs(
                listeners.substring(0, listeners.indexOf(':')));
            assertEquals("PLAIN", client.get("sasl.mechanism"));
            assertTrue(client.containsKey("sasl.jaas.config"), client.keySet().toString());
        }
        final Map<String, String> sasl = minimal();
        sasl.put("listeners", "INTERNAL://127.0.0.1:9093,EXTERNAL://127.0.0.1:9094");
        sasl.put("listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
        sasl.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512");
        new BrokerConfig(sasl);
        for (final Map.Entry<String, String> unserved : Map.of("sasl.enabled.mechanisms", "GSSAPI",
            "listener.name.external.sasl.enabled.mechanisms", "PLAIN,OAUTHBEARER",
            "connections.max.reauth.ms", "3600000").entrySet())
        {
            final Map<String, String> props = new HashMap<>(sasl);
            props.put(unserved.getKey(), unserved.getValue());
            final ConfigException e = assertThrows(ConfigException.class, () -> new BrokerConfig(props),
                unserved.toString());
            assertTrue(e.getMessage().contains(unserved.getKey().replace("listener.name.external.", "")),
                e.getMessage());
        }
        final Map<String, String> noKeystore = minimal();
        noKeystore.put("listeners", "SECURE://127.0.0.1:9094");
        noKeystore.put("listener.security.protocol.map", "SECURE:SSL,CONTROLLER:PLAINTEXT");
        final ConfigException missing = assertThrows(ConfigException.class, () -> new BrokerConfig(noKeystore));
        assertTrue(missing.getMessage().contains("listener.name.secure.ssl.keystore.location"), missing.getMessage());

        final Map<String, String> unmapped = minimal();
        unmapped.put("listeners", "PLAINTEXT://127.0.0.1:9093,INTERNAL://127.0.0.1:9094");
        final ConfigException e = assertThrows(ConfigException.class, () -> new BrokerConfig(unmapped));
        assertTrue(e.getMessage().contains("no security protocol for listener INTERNAL"), e.getMessage());

        final Map<String, String> bad = minimal();
        bad.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,OTHER:TLS");
        assertThrows(ConfigException.class, () -> new BrokerConfig(bad), "an unknown protocol");
    }

    @Test
    @DisplayName("an SSL listener's settings are Kafka's ssl.* keys, each overridable per listener with "
        + "listener.name.<name>.; the broker's clients of that listener get security.protocol and the client keys; "
        + "listeners of different protocols sit side by side, inter.broker.listener.name picks the brokers' own")
    void shouldResolveSslSettingsPerListener()
    {
        final Map<String, String> props = minimal();
        props.put("listeners", "INTERNAL://127.0.0.1:9093,SECURE://127.0.0.1:9094");
        props.put("listener.security.protocol.map", "INTERNAL:SSL,SECURE:SSL,CONTROLLER:PLAINTEXT");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("ssl.keystore.location", "/broker.p12");
        props.put("listener.name.secure.ssl.keystore.location", "/secure.p12");
        props.put("ssl.client.auth", "required");
        final SecurityConfig security = new BrokerConfig(props).security();
        assertEquals(SecurityProtocol.SSL, security.protocol("SECURE"));
        assertEquals(SecurityProtocol.PLAINTEXT, security.protocol("CONTROLLER"));
        assertEquals("/secure.p12", security.listenerConfigs("SECURE").get("ssl.keystore.location"));
        assertEquals("required", security.listenerConfigs("SECURE").get("ssl.client.auth"));
        assertEquals(Map.of(), security.clientConfigs("CONTROLLER"));
        assertEquals(Map.of(), security.controllerClientConfigs());
        assertEquals("/broker.p12", security.listenerConfigs("INTERNAL").get("ssl.keystore.location"));
        final Map<String, Object> client = security.clientConfigs("SECURE");
        assertEquals("SSL", client.get("security.protocol"));
        assertEquals("/secure.p12", client.get("ssl.keystore.location"));
        assertEquals("https", client.get("ssl.endpoint.identification.algorithm"));
        assertFalse(client.containsKey("ssl.client.auth"), "a server key is no client setting");

        // Listeners of different protocols side by side; other brokers use inter.broker.listener.name's.
        final Map<String, String> mixed = minimal();
        mixed.put("listeners", "INTERNAL://127.0.0.1:9093,EXTERNAL://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095");
        mixed.put("listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SSL,CONTROLLER:PLAINTEXT");
        mixed.put("controller.listener.names", "CONTROLLER");
        mixed.put("ssl.keystore.location", "/broker.p12");
        assertEquals("INTERNAL", new BrokerConfig(mixed).interBrokerListener().name(), "the first by default");
        mixed.put("inter.broker.listener.name", "EXTERNAL");
        assertEquals("EXTERNAL", new BrokerConfig(mixed).interBrokerListener().name());
        for (final String notAdvertised : List.of("CONTROLLER", "NOPE"))
        {
            mixed.put("inter.broker.listener.name", notAdvertised);
            final ConfigException e = assertThrows(ConfigException.class, () -> new BrokerConfig(mixed));
            assertTrue(e.getMessage().contains("inter.broker.listener.name"), e.getMessage());
        }

        final Map<String, String> badAuth = minimal();
        badAuth.put("ssl.client.auth", "sometimes");
        assertThrows(ConfigException.class, () -> new BrokerConfig(badAuth));
    }
}
