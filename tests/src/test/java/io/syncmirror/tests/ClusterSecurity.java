package io.syncmirror.tests;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.CommonClientConfigs;

import io.syncmirror.broker.network.TestCertificates;
import io.syncmirror.broker.network.TestScramCredentials;
import io.syncmirror.protocol.WireSecurity;

/**
 * How the clusters of a test are secured, and what every client of them must be given: the brokers' settings
 * (added to each broker's properties), the operator's Kafka client settings (the test's admin, producers and
 * consumers, the CLI's {@code --command-config}) and the mirror link's (the CLI's {@code --source-config-file}).
 * {@link #PLAINTEXT} is the clusters as the example configs have them. Immutable.
 */
record ClusterSecurity(Map<String, String> brokerConfig, Map<String, String> operatorConfig,
    Map<String, String> linkConfig)
{
    static final ClusterSecurity PLAINTEXT = new ClusterSecurity(Map.of(), Map.of(), Map.of());

    ClusterSecurity
    {
        brokerConfig = Map.copyOf(brokerConfig);
        operatorConfig = Map.copyOf(operatorConfig);
        linkConfig = Map.copyOf(linkConfig);
    }

    /**
     * Every listener SASL_SSL, nothing plaintext: the example's PLAINTEXT and CONTROLLER listener names mapped to
     * SASL_SSL, certificates of one test CA made under {@code dir}, brokers logging in to each other with
     * SCRAM-SHA-512 and to the controllers with PLAIN, the operator and the mirror link as SCRAM-SHA-512 users of
     * their own (salted credentials in a file every broker reads; no password in any broker config but the
     * controllers' PLAIN table).
     */
    static ClusterSecurity saslSsl(final Path dir) throws Exception
    {
        final TestCertificates ca = new TestCertificates(dir, "trial-ca");
        final Map<String, String> broker = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        broker.put("listener.security.protocol.map", "PLAINTEXT:SASL_SSL,CONTROLLER:SASL_SSL");
        broker.put("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN");
        broker.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        broker.put("sasl.mechanism.controller.protocol", "PLAIN");
        broker.put("listener.name.plaintext.scram-sha-512.sasl.jaas.config", scram("broker", "broker-secret"));
        // PLAIN is enabled on the client listener too (sasl.enabled.mechanisms is one list); nobody uses it there.
        broker.put("listener.name.plaintext.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required user_nobody=\"-\";");
        broker.put("listener.name.controller.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" "
                + "password=\"broker-secret\" user_broker=\"broker-secret\";");
        final Path credentials = TestScramCredentials.write(dir.resolve("scram-credentials.properties"), Map.of(
            "broker", "broker-secret", "operator", "operator-secret", "mirror-link", "link-secret"));
        broker.put("syncmirror.sasl.scram.credentials.file", credentials.toString());
        final Map<String, String> client = new HashMap<>(ca.sslConfigs(null));
        client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        client.put("sasl.mechanism", "SCRAM-SHA-512");
        final Map<String, String> operator = new HashMap<>(client);
        operator.put("sasl.jaas.config", scram("operator", "operator-secret"));
        final Map<String, String> link = new HashMap<>(client);
        link.put("sasl.jaas.config", scram("mirror-link", "link-secret"));
        return new ClusterSecurity(broker, operator, link);
    }

    private static String scram(final String user, final String password)
    {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
            + "\" password=\"" + password + "\";";
    }

    boolean plaintext()
    {
        return operatorConfig.isEmpty();
    }

    /** The operator's settings as the clients' override map. */
    Map<String, Object> clientOverrides()
    {
        return new HashMap<>(operatorConfig);
    }

    /** The operator's settings for the mirror RPC client. */
    WireSecurity wire()
    {
        return WireSecurity.forClientConfigs(operatorConfig);
    }

    /** Writes {@code configs} as a properties file (a tool's {@code --command-config}) and returns its path. */
    static Path write(final Path file, final Map<String, String> configs) throws IOException
    {
        final Properties properties = new Properties();
        properties.putAll(configs);
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            properties.store(writer, "client settings of a test");
        }
        return file;
    }
}
