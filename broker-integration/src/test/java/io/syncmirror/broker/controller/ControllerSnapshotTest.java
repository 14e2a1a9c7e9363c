package io.syncmirror.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MetadataListener;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;

/**
 * A metadata snapshot stands for the log it replaces: after a seeded run of every kind of controller change
 * (brokers registered, fenced by expired sessions and re-registered; topics created, deleted, reconfigured; ISRs
 * changed; mirrors, mirror topics, sync registrations and mirror types; producer id blocks and floors; SCRAM
 * credentials and ACLs set and deleted), the controller's snapshot records rebuild an identical controller, and a
 * broker that loads the snapshot, from an empty image or from one that stopped part-way through the log, holds the
 * image of a broker that applied the whole log, without dropping a partition that still exists. A failing seed
 * reproduces.
 */
class ControllerSnapshotTest
{
    private static final int BROKERS = 4;
    private static final int STEPS = 400;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    @DisplayName("a snapshot rebuilds the controller and the broker image the whole log builds")
    void snapshotStandsForTheLog(final long seed)
    {
        final Random random = new Random(seed);
        final ManualClock clock = new ManualClock(1_000);
        final MemoryMetadataLog log = new MemoryMetadataLog();
        final Controller controller = new Controller(log, clock, Map.of(Controller.CLUSTER_ID_CONFIG, "test-cluster",
            Controller.BROKER_SESSION_TIMEOUT_MS_CONFIG, "9000"), Controller.seededTopicIds(seed));
        final Map<Integer, Long> epochs = new HashMap<>();
        for (int b = 1; b <= BROKERS; b++)
        {
            epochs.put(b, ControllerFixture.registerAndUnfence(controller, b));
        }
        final long midOffset = drive(random, clock, controller, epochs, STEPS / 2);
        drive(random, clock, controller, epochs, STEPS / 2);

        final List<MetadataRecord> snapshot = controller.snapshotRecords();
        final MemoryMetadataLog snapshotLog = new MemoryMetadataLog();
        snapshotLog.append(snapshot, clock.getAsLong());
        final Controller rebuilt = new Controller(snapshotLog, clock, Map.of(Controller.CLUSTER_ID_CONFIG,
            "test-cluster"));
        assertEquals(snapshot, rebuilt.snapshotRecords(), "seed " + seed + ": the rebuilt controller's state");
        assertEquals(controller.topicNames(), rebuilt.topicNames());
        assertEquals(controller.nextProducerIdBlockStart(), rebuilt.nextProducerIdBlockStart());

        final Records wholeLog = log.read(0, Integer.MAX_VALUE);
        final BrokerMetadataApplier fromLog = new BrokerMetadataApplier(1, 0, new Removals());
        fromLog.apply(wholeLog, log.highWatermark());
        final Records snapshotBatch = MetadataRecordCodec.encodeBatch(0, clock.getAsLong(), snapshot);

        final BrokerMetadataApplier fromEmpty = new BrokerMetadataApplier(1, 0, new Removals());
        fromEmpty.loadSnapshot(snapshotBatch, log.endOffset());
        assertSameImage(fromLog, fromEmpty, "seed " + seed + ", snapshot into an empty image");

        final Removals removals = new Removals();
        final BrokerMetadataApplier partWay = new BrokerMetadataApplier(1, 0, removals);
        partWay.apply(prefix(log, midOffset), midOffset + 1);
        final MetadataImage before = partWay.image();
        partWay.loadSnapshot(snapshotBatch, log.endOffset());
        assertSameImage(fromLog, partWay, "seed " + seed + ", snapshot over an image part-way through the log");
        for (final TopicPartition removed : removals.removed)
        {
            assertTrue(before.topic(removed.topic()).isPresent());
            assertTrue(partWay.image().topic(removed.topic()).isEmpty()
                || !partWay.image().topic(removed.topic()).get().id().equals(before.topic(removed.topic()).get().id()),
                "seed " + seed + ": " + removed + " was dropped but its topic still exists");
        }
    }

    /** Runs {@code steps} random changes; returns the log end offset - 1 after them. */
    private static long drive(final Random random, final ManualClock clock, final Controller c,
        final Map<Integer, Long> epochs, final int steps)
    {
        for (int i = 0; i < steps; i++)
        {
            final List<String> topics = new ArrayList<>(c.topicNames());
            final String someTopic = topics.isEmpty() ? null : topics.get(random.nextInt(topics.size()));
            switch (random.nextInt(14))
            {
                case 0, 1, 2 -> ControllerFixture.createTopic(c, "t" + random.nextInt(40), 1 + random.nextInt(3),
                    1 + random.nextInt(3), random.nextBoolean() ? Map.of() : Map.of("retention.ms", "" + i));
                case 3 ->
                {
                    if (someTopic != null)
                    {
                        c.deleteTopics(new DeleteTopicsRequestData().setTopicNames(List.of(someTopic)));
                    }
                }
                case 4 ->
                {
                    if (someTopic != null)
                    {
                        ControllerFixture.alterConfig(c, someTopic, "segment.ms", "" + (60_000 + i),
                            random.nextBoolean() ? AlterConfigOp.OpType.SET : AlterConfigOp.OpType.DELETE);
                    }
                }
                case 5 ->
                {
                    // Sessions of all but one broker renewed; the other may be fenced by the tick.
                    final int silent = 1 + random.nextInt(BROKERS);
                    clock.advance(5_000);
                    epochs.forEach((b, e) ->
                    {
                        if (b != silent)
                        {
                            ControllerFixture.heartbeat(c, b, e);
                        }
                    });
                    clock.advance(5_000);
                    epochs.forEach((b, e) ->
                    {
                        if (b != silent)
                        {
                            ControllerFixture.heartbeat(c, b, e);
                        }
                    });
                    c.tick();
                }
                case 6 ->
                {
                    final int b = 1 + random.nextInt(BROKERS);
                    if (c.isFenced(b))
                    {
                        epochs.put(b, ControllerFixture.registerAndUnfence(c, b));
                    }
                }
                case 7 -> c.createMirror(new MirrorDefinition("m" + random.nextInt(3), "127.0.0.1:9999",
                    Map.of(), List.of(".*"), List.of()));
                case 8 ->
                {
                    final List<String> mirrors = new ArrayList<>(c.mirrors().keySet());
                    if (!mirrors.isEmpty())
                    {
                        c.createMirrorTopic("mt" + random.nextInt(20), Uuid.randomUuid(), 1 + random.nextInt(2),
                            Map.of(), mirrors.get(random.nextInt(mirrors.size())));
                    }
                }
                case 9 ->
                {
                    if (someTopic != null)
                    {
                        final Uuid id = c.topicId(someTopic).orElseThrow();
                        if (random.nextBoolean())
                        {
                            c.changeSyncRegistration(id, "dr-" + random.nextInt(2), random.nextInt(3) > 0);
                        }
                        else
                        {
                            c.setMirrorTopicType(id, (byte) random.nextInt(2));
                        }
                    }
                }
                case 10 ->
                {
                    final int b = 1 + random.nextInt(BROKERS);
                    if (random.nextBoolean())
                    {
                        c.allocateProducerIds(new AllocateProducerIdsRequestData().setBrokerId(b)
                            .setBrokerEpoch(epochs.get(b)));
                    }
                    else
                    {
                        c.raiseProducerIdFloor(1_000L * random.nextInt(100));
                    }
                }
                case 11 ->
                {
                    final String user = "user-" + random.nextInt(4);
                    final byte mechanism = (byte)(1 + random.nextInt(2));
                    final AlterUserScramCredentialsRequestData alter = new AlterUserScramCredentialsRequestData();
                    if (random.nextInt(3) == 0)
                    {
                        alter.deletions().add(new AlterUserScramCredentialsRequestData.ScramCredentialDeletion()
                            .setName(user).setMechanism(mechanism));
                    }
                    else
                    {
                        final byte[] salt = new byte[16];
                        random.nextBytes(salt);
                        final byte[] salted = new byte[mechanism == 1 ? 32 : 64];
                        random.nextBytes(salted);
                        alter.upsertions().add(new AlterUserScramCredentialsRequestData.ScramCredentialUpsertion()
                            .setName(user).setMechanism(mechanism).setIterations(4096 + i).setSalt(salt)
                            .setSaltedPassword(salted));
                    }
                    c.alterUserScramCredentials(alter);
                }
                case 12 ->
                {
                    final String principal = "User:u" + random.nextInt(3);
                    if (random.nextInt(3) == 0)
                    {
                        c.deleteAcls(List.of(new AclBindingFilter(ResourcePatternFilter.ANY,
                            new AccessControlEntryFilter(principal, null, AclOperation.ANY, AclPermissionType.ANY))));
                    }
                    else
                    {
                        c.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC,
                            "t" + random.nextInt(5), random.nextBoolean() ? PatternType.LITERAL : PatternType.PREFIXED),
                            new AccessControlEntry(principal, "*", random.nextBoolean() ? AclOperation.READ
                                : AclOperation.WRITE, AclPermissionType.ALLOW))));
                    }
                }
                default ->
                {
                    if (someTopic != null)
                    {
                        final PartitionState s = c.partition(someTopic, 0).orElseThrow();
                        if (s.leader() >= 0 && s.isr().size() > 1)
                        {
                            ControllerFixture.alterIsr(c, s.leader(), s, List.of(s.leader()), s.leaderEpoch(),
                                s.partitionEpoch());
                        }
                        else if (random.nextBoolean())
                        {
                            c.deleteMirror("m" + random.nextInt(3));
                        }
                    }
                }
            }
        }
        return c.log().endOffset() - 1;
    }

    private static Records prefix(final MemoryMetadataLog log, final long lastOffset)
    {
        final List<MetadataRecord> records = new ArrayList<>();
        MetadataRecordCodec.decodeAll(log.read(0, Integer.MAX_VALUE)).forEach(r ->
        {
            if (r.offset() <= lastOffset)
            {
                records.add(r.record());
            }
        });
        return MetadataRecordCodec.encodeBatch(0, 0, records);
    }

    private static void assertSameImage(final BrokerMetadataApplier expected, final BrokerMetadataApplier actual,
        final String what)
    {
        final MetadataImage e = expected.image();
        final MetadataImage a = actual.image();
        assertEquals(byId(e), byId(a), what + ": topics");
        assertEquals(List.copyOf(e.registeredBrokers()), List.copyOf(a.registeredBrokers()), what + ": brokers");
        assertEquals(e.mirrors(), a.mirrors(), what + ": mirrors");
        assertEquals(e.scramCredentials(), a.scramCredentials(), what + ": SCRAM credentials");
        assertEquals(e.acls(), a.acls(), what + ": ACLs");
        for (final TopicMetadata t : e.topics())
        {
            assertEquals(e.syncState(t.id()), a.syncState(t.id()), what + ": sync state of " + t.name());
        }
        assertEquals(expected.producerIdFloor(), actual.producerIdFloor(), what + ": producer id floor");
        assertEquals(e.appliedOffset(), a.appliedOffset(), what + ": applied offset");
    }

    private static Map<Uuid, TopicMetadata> byId(final MetadataImage image)
    {
        final Map<Uuid, TopicMetadata> out = new HashMap<>();
        image.topics().forEach(t -> out.put(t.id(), t));
        return out;
    }

    private static final class Removals implements MetadataListener
    {
        final Set<TopicPartition> removed = new java.util.HashSet<>();

        @Override
        public void onPartitionChanged(final PartitionState state, final Map<String, String> topicConfig)
        {
        }

        @Override
        public void onPartitionRemoved(final TopicPartition partition)
        {
            removed.add(partition);
        }

        @Override
        public void onTopicConfigChanged(final String topic, final Map<String, String> topicConfig)
        {
        }
    }
}
