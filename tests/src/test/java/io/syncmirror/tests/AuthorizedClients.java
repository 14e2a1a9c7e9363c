package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.tools.AclCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The clients the authorization tests share: Kafka's ACL tool as the operator, SCRAM users, their producers. */
final class AuthorizedClients
{
    private AuthorizedClients()
    {
    }

    /** Runs Kafka's {@code kafka-acls.sh} against {@code bootstrap} with the operator's settings; asserts exit 0. */
    static KafkaTools.Output acls(final String bootstrap, final Path operatorConfig, final String... args)
        throws Exception
    {
        final List<String> all = new ArrayList<>(List.of("--bootstrap-server", bootstrap, "--command-config",
            operatorConfig.toString()));
        all.addAll(List.of(args));
        final KafkaTools.Output output = KafkaTools.run("kafka-acls", AclCommand::main, all);
        assertEquals(0, output.status(), output::toString);
        return output;
    }

    /** The operator's client settings, logging in as SCRAM user {@code name} instead. */
    static Map<String, Object> user(final ClusterSecurity security, final String name, final String password)
    {
        final Map<String, Object> settings = security.clientOverrides();
        settings.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"" + name + "\" password=\"" + password + "\";");
        return settings;
    }

    /** Waits until the user's acks=all record to {@code topic} goes through (its login and grants arrive first). */
    static void awaitProduce(final String bootstrap, final String topic, final Map<String, Object> user)
        throws InterruptedException
    {
        Clients.awaitCondition(() ->
        {
            try
            {
                produce(bootstrap, topic, user);
                return true;
            }
            catch (final Exception e)
            {
                return false;
            }
        }, 30_000, "the user never produced to " + bootstrap);
    }

    /** One acks=all record to {@code topic} as the user; throws what the producer reports. */
    static void produce(final String bootstrap, final String topic, final Map<String, Object> user) throws Exception
    {
        final Map<String, Object> settings = new HashMap<>(user);
        settings.put("max.block.ms", 10_000);
        settings.put("delivery.timeout.ms", 15_000);
        settings.put("request.timeout.ms", 5_000);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, settings))
        {
            producer.send(new ProducerRecord<>(topic, "r".getBytes(StandardCharsets.UTF_8))).get(20,
                TimeUnit.SECONDS);
        }
    }
}
