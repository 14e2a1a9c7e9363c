package io.syncmirror.tests;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.tools.ConfigCommand;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SCRAM credentials kept in the cluster metadata, managed as on Kafka: a 3-node SASL_SSL cluster whose only users
 * at first are those of its bootstrap credentials file (the brokers and an operator), where the operator adds,
 * replaces and deletes users with Admin's AlterUserScramCredentials and Kafka's own {@code kafka-configs.sh}
 * ({@link ConfigCommand}), and every broker lets them log in, or not, at once.
 */
@Timeout(180)
class ScramCredentialsAdminTest
{
    private static final String TOPIC = "scram-orders";

    @TempDir
    Path dir;
    /** The cluster's security: its CA's truststore is what every client here trusts. */
    private ClusterSecurity security;

    @Test
    @DisplayName("AlterUserScramCredentials and DescribeUserScramCredentials through Admin and kafka-configs.sh: a "
        + "user added logs in on every broker, a password replaced takes over, a user deleted is refused, Kafka's errors "
        + "for bad input, and the credentials outlive a broker's restart")
    void shouldManageScramUsersInTheMetadata() throws Exception
    {
        security = ClusterSecurity.saslSsl(dir);
        final Map<String, String> broker = new HashMap<>(security.brokerConfig());
        broker.put("sasl.enabled.mechanisms", "SCRAM-SHA-512,SCRAM-SHA-256,PLAIN");
        try (EmbeddedCluster cluster = EmbeddedCluster.startWithQuorum(3, 3, broker);
             Admin admin = Clients.admin(cluster.bootstrapServers(), security.clientOverrides()))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)3, Map.of());
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("carol",
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "carol-secret"))).all()
                .get(30, TimeUnit.SECONDS);
            final UserScramCredentialsDescription carol = admin.describeUserScramCredentials(List.of("carol"))
                .description("carol").get(30, TimeUnit.SECONDS);
            assertEquals(List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)),
                carol.credentialInfos());
            for (int node = 1; node <= 3; node++)
            {
                produceAs(cluster, node, "SCRAM-SHA-512", "carol", "carol-secret");
            }

            final KafkaTools.Output added = KafkaTools.run("kafka-configs", ConfigCommand::main, List.of(
                "--bootstrap-server", cluster.bootstrapServers(), "--command-config",
                ClusterSecurity.write(dir.resolve("operator.properties"), security.operatorConfig()).toString(),
                "--alter", "--add-config", "SCRAM-SHA-256=[iterations=4096,password=dave-secret]",
                "--entity-type", "users", "--entity-name", "dave"));
            assertEquals(0, added.status(), added::toString);
            awaitLogin(cluster, "SCRAM-SHA-256", "dave", "dave-secret");
            assertEquals(List.of("carol", "dave"), admin.describeUserScramCredentials().users()
                .get(30, TimeUnit.SECONDS).stream().sorted().toList(),
                "the metadata's users (the file's bootstrap users are not in it)");

            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("carol",
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "carol-new"))).all()
                .get(30, TimeUnit.SECONDS);
            awaitLogin(cluster, "SCRAM-SHA-512", "carol", "carol-new");
            assertRefused(cluster, "SCRAM-SHA-512", "carol", "carol-secret");

            final ExecutionException few = assertThrows(ExecutionException.class, () -> admin
                .alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("erin",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), "x"))).all()
                .get(30, TimeUnit.SECONDS));
            assertInstanceOf(UnacceptableCredentialException.class, few.getCause(), String.valueOf(few.getCause()));
            final ExecutionException missing = assertThrows(ExecutionException.class, () -> admin
                .alterUserScramCredentials(List.of(new UserScramCredentialDeletion("nobody",
                    ScramMechanism.SCRAM_SHA_256))).all().get(30, TimeUnit.SECONDS));
            assertInstanceOf(ResourceNotFoundException.class, missing.getCause(),
                String.valueOf(missing.getCause()));

            cluster.stopBroker(2);
            cluster.startBroker(2);
            cluster.awaitBrokersRegistered();
            produceAs(cluster, 2, "SCRAM-SHA-256", "dave", "dave-secret");

            admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("carol",
                ScramMechanism.SCRAM_SHA_512))).all().get(30, TimeUnit.SECONDS);
            final ExecutionException gone = assertThrows(ExecutionException.class, () -> admin
                .describeUserScramCredentials(List.of("carol")).description("carol").get(30, TimeUnit.SECONDS));
            assertInstanceOf(ResourceNotFoundException.class, gone.getCause(), String.valueOf(gone.getCause()));
            for (int node = 1; node <= 3; node++)
            {
                assertRefusedOn(cluster, node, "SCRAM-SHA-512", "carol", "carol-new");
            }
        }
    }

    /** Waits until every broker lets {@code user} in (each applies the metadata on its own). */
    private void awaitLogin(final EmbeddedCluster cluster, final String mechanism, final String user,
        final String password) throws InterruptedException
    {
        for (int node = 1; node <= 3; node++)
        {
            final int broker = node;
            Clients.awaitCondition(() ->
            {
                try
                {
                    produceAs(cluster, broker, mechanism, user, password);
                    return true;
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, 30_000, user + " never logged in on broker " + node);
        }
    }

    private void assertRefused(final EmbeddedCluster cluster, final String mechanism, final String user,
        final String password)
    {
        for (int node = 1; node <= 3; node++)
        {
            assertRefusedOn(cluster, node, mechanism, user, password);
        }
    }

    private void assertRefusedOn(final EmbeddedCluster cluster, final int node, final String mechanism,
        final String user, final String password)
    {
        final Exception refused = assertThrows(Exception.class, () -> produceAs(cluster, node, mechanism, user,
            password));
        Throwable cause = refused;
        while (cause != null && !(cause instanceof SaslAuthenticationException))
        {
            cause = cause.getCause();
        }
        assertTrue(cause != null, () -> user + " on broker " + node + ": " + refused);
    }

    /** One acks=all record produced as {@code user}, bootstrapping from broker {@code node} alone. */
    private void produceAs(final EmbeddedCluster cluster, final int node, final String mechanism, final String user,
        final String password) throws Exception
    {
        final Map<String, Object> settings = security.clientOverrides();
        settings.put("sasl.mechanism", mechanism);
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"" + user + "\" password=\"" + password + "\";");
        settings.put("max.block.ms", 10_000);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer("127.0.0.1:" + cluster.port(node), settings))
        {
            producer.send(new ProducerRecord<>(TOPIC, user.getBytes())).get(20, TimeUnit.SECONDS);
        }
    }
}
