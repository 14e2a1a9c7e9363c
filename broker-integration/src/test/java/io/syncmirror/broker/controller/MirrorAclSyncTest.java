package io.syncmirror.broker.controller;

import static io.syncmirror.broker.controller.ControllerFixture.registerAndUnfence;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorAclSyncConfig;
import io.syncmirror.broker.metadata.MirrorDefinition;

/**
 * Mirror ACL sync: what the source's ACLs make a mirror keep (the plan), and the controller's records for it over
 * a real controller (memory log, own event thread) with a fake source: copied, held back, removed, owned, granted
 * at failover, kept across a controller restart.
 */
@Timeout(30)
class MirrorAclSyncTest
{
    private static final String MIRROR = "east";
    private static final Uuid ORDERS_ID = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAQ");
    private static final Uuid PAY_ID = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAg");

    private final MemoryMetadataLog log = new MemoryMetadataLog();
    private final ManualClock clock = new ManualClock(1_000);
    private final Controller controller = new Controller(log, clock, Map.of("default.replication.factor", "2"),
        Controller.seededTopicIds(3));
    private final ControllerApis apis;
    private final MirrorController mirrors;
    private final FakeSourceClusterClient source = new FakeSourceClusterClient();
    private MirrorMetadataManager manager;

    MirrorAclSyncTest()
    {
        registerAndUnfence(controller, 1);
        registerAndUnfence(controller, 2);
        apis = new ControllerApis(controller);
        mirrors = new MirrorController(apis);
    }

    @AfterEach
    void tearDown()
    {
        if (manager != null)
        {
            manager.close();
        }
        apis.close();
    }

    private static AclBinding acl(final ResourceType type, final String name, final PatternType pattern,
        final String principal, final AclOperation operation, final AclPermissionType permission)
    {
        return new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry(principal, "*",
            operation, permission));
    }

    private static AclBinding topicAcl(final String topic, final String principal, final AclOperation operation)
    {
        return acl(ResourceType.TOPIC, topic, PatternType.LITERAL, principal, operation, AclPermissionType.ALLOW);
    }

    private static StandardAcl standard(final AclBinding binding)
    {
        return StandardAcl.fromAclBinding(binding);
    }

    private void start(final Map<String, String> mirrorConfigs) throws Exception
    {
        assertEquals(MirrorOpResult.OK, mirrors.createMirror(new MirrorDefinition(MIRROR, "fake:9092", Map.of(),
            List.of("orders.*", "payments"), List.of(), mirrorConfigs)).get(5, TimeUnit.SECONDS));
        source.putTopic("orders", ORDERS_ID, 1, Map.of());
        source.putTopic("payments", PAY_ID, 1, Map.of());
        manager = new MirrorMetadataManager(mirrors, d -> source, new MirrorMetadataManager.GroupOffsetWriter()
        {
            @Override
            public void commit(final String groupId, final Map<TopicPartition, OffsetAndMetadata> offsets)
            {
            }

            @Override
            public void close()
            {
            }
        }, 60_000, clock);
        sync();
    }

    private void sync() throws Exception
    {
        manager.syncNow().get(10, TimeUnit.SECONDS);
    }

    private <T> T onController(final Function<Controller, T> read) throws Exception
    {
        return apis.onEventThread(read).get(5, TimeUnit.SECONDS);
    }

    /** The ACLs in force on this test's controller. */
    private Set<AclBinding> aclsHere() throws Exception
    {
        return onController(MirrorAclSyncTest::aclsInForce);
    }

    /** The ACLs in force on {@code controller}, from its state as a snapshot writes it. */
    private static Set<AclBinding> aclsInForce(final Controller controller)
    {
        return controller.snapshotRecords().stream().filter(r -> r instanceof MetadataRecord.Acl)
            .map(r -> ((MetadataRecord.Acl) r).acl().toBinding()).collect(Collectors.toSet());
    }

    private Set<AclBinding> held() throws Exception
    {
        return onController(c -> c.mirrorAcls(MIRROR).stream().filter(MetadataRecord.MirrorAcl::held)
            .map(e -> e.acl().acl().toBinding()).collect(Collectors.toSet()));
    }

    @Test
    @DisplayName("The plan: topic ACLs reaching a mirror topic (literal, prefixed, *) become literal ACLs on it; "
        + "reads and DENYs in force, other grants held, ALL held with READ and DESCRIBE_CONFIGS standing in; group "
        + "ACLs by the include/exclude filters; cluster and transactional-id ACLs never")
    void shouldPlanWhatTheSourcesAclsMakeTheMirrorKeep()
    {
        final MirrorAclSyncConfig config = MirrorAclSyncConfig.parse(Map.of(MirrorAclSyncConfig.ENABLE_CONFIG,
            "true", MirrorAclSyncConfig.GROUPS_INCLUDE_CONFIG, "app-.*,billing",
            MirrorAclSyncConfig.GROUPS_EXCLUDE_CONFIG, "app-internal.*"));
        final List<AclBinding> source = List.of(
            topicAcl("orders", "User:reader", AclOperation.READ),
            topicAcl("orders", "User:writer", AclOperation.WRITE),
            topicAcl("other", "User:reader", AclOperation.READ),
            acl(ResourceType.TOPIC, "ord", PatternType.PREFIXED, "User:p", AclOperation.DESCRIBE,
                AclPermissionType.ALLOW),
            acl(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:bad", AclOperation.READ, AclPermissionType.DENY),
            topicAcl("payments", "User:owner", AclOperation.ALL),
            acl(ResourceType.GROUP, "app-1", PatternType.LITERAL, "User:reader", AclOperation.READ,
                AclPermissionType.ALLOW),
            acl(ResourceType.GROUP, "app-", PatternType.PREFIXED, "User:reader", AclOperation.DESCRIBE,
                AclPermissionType.ALLOW),
            acl(ResourceType.GROUP, "app-internal-x", PatternType.LITERAL, "User:reader", AclOperation.READ,
                AclPermissionType.ALLOW),
            acl(ResourceType.GROUP, "other", PatternType.LITERAL, "User:reader", AclOperation.READ,
                AclPermissionType.ALLOW),
            acl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:admin", AclOperation.ALTER,
                AclPermissionType.ALLOW),
            acl(ResourceType.TRANSACTIONAL_ID, "tx", PatternType.LITERAL, "User:writer", AclOperation.WRITE,
                AclPermissionType.ALLOW));

        final MirrorAclSync.Plan plan = MirrorAclSync.plan(source, Set.of("orders", "payments"), config);

        assertEquals(Set.of(
            standard(topicAcl("orders", "User:reader", AclOperation.READ)),
            standard(topicAcl("orders", "User:p", AclOperation.DESCRIBE)),
            standard(acl(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:bad", AclOperation.READ,
                AclPermissionType.DENY)),
            standard(acl(ResourceType.TOPIC, "payments", PatternType.LITERAL, "User:bad", AclOperation.READ,
                AclPermissionType.DENY)),
            standard(topicAcl("payments", "User:owner", AclOperation.READ)),
            standard(topicAcl("payments", "User:owner", AclOperation.DESCRIBE_CONFIGS)),
            standard(acl(ResourceType.GROUP, "app-1", PatternType.LITERAL, "User:reader", AclOperation.READ,
                AclPermissionType.ALLOW)),
            standard(acl(ResourceType.GROUP, "app-", PatternType.PREFIXED, "User:reader", AclOperation.DESCRIBE,
                AclPermissionType.ALLOW))), plan.inForce());
        assertEquals(Set.of(standard(topicAcl("orders", "User:writer", AclOperation.WRITE)),
            standard(topicAcl("payments", "User:owner", AclOperation.ALL))), plan.held());
    }

    @Test
    @DisplayName("Mirror configs: unknown names, a non-boolean acl.sync.enable and a bad regex are refused with "
        + "INVALID_CONFIG naming them; a mirror without them does not sync ACLs")
    void shouldRefuseBadMirrorConfigsAndSyncNothingByDefault() throws Exception
    {
        for (final Map<String, String> bad : List.of(Map.of("acl.sync.enabled", "true"),
            Map.of(MirrorAclSyncConfig.ENABLE_CONFIG, "yes"), Map.of(MirrorAclSyncConfig.GROUPS_INCLUDE_CONFIG, "(")))
        {
            final MirrorOpResult result = mirrors.createMirror(new MirrorDefinition("bad", "fake:9092", Map.of(),
                List.of(), List.of(), bad)).get(5, TimeUnit.SECONDS);
            assertEquals(Errors.INVALID_CONFIG, result.error(), bad.toString());
            assertTrue(result.messageOrDefault().contains(bad.keySet().iterator().next()), result.message());
        }
        source.acls.add(topicAcl("orders", "User:reader", AclOperation.READ));
        start(Map.of());
        assertEquals(Set.of(), aclsHere());
        assertTrue(manager.lastError(MIRROR).isEmpty(), manager.lastError(MIRROR).toString());
    }

    @Test
    @DisplayName("ACL sync copies the source's reads into force and holds its writes; a second cycle writes "
        + "nothing; an ACL the source drops is removed, one deleted here comes back, an operator's own stays")
    void shouldCopyHoldRemoveAndRestoreAcls() throws Exception
    {
        final AclBinding read = topicAcl("orders", "User:reader", AclOperation.READ);
        final AclBinding write = topicAcl("orders", "User:writer", AclOperation.WRITE);
        final AclBinding own = topicAcl("payments", "User:ops", AclOperation.READ);
        source.acls.addAll(List.of(read, write, own));
        assertEquals(Errors.NONE.code(), onController(c -> c.createAcls(List.of(own))).results().get(0).errorCode());
        start(Map.of(MirrorAclSyncConfig.ENABLE_CONFIG, "true"));
        assertEquals(Set.of(read, own), aclsHere());
        assertEquals(Set.of(write), held());
        assertTrue(manager.lastError(MIRROR).isEmpty(), manager.lastError(MIRROR).toString());

        final long end = log.endOffset();
        sync();
        assertEquals(end, log.endOffset(), "an unchanged source writes no record");

        source.acls.removeAll(List.of(read, own));
        sync();
        assertEquals(Set.of(own), aclsHere(), "the copied ACL goes; the operator's own stays");

        source.acls.add(read);
        sync();
        assertEquals(Set.of(read, own), aclsHere());
        onController(c -> c.deleteAcls(List.of(read.toFilter())));
        assertEquals(Set.of(own), aclsHere());
        sync();
        assertEquals(Set.of(read, own), aclsHere(), "a copied ACL deleted here is written again");
    }

    @Test
    @DisplayName("Failover puts the held grants in force in the same batch that makes the topic writable, keeps "
        + "its ACLs as this cluster's own, and the held grants survive a controller restart first")
    void shouldGrantHeldAclsAtFailoverAfterARestart() throws Exception
    {
        final AclBinding read = topicAcl("orders", "User:app", AclOperation.READ);
        final AclBinding write = topicAcl("orders", "User:app", AclOperation.WRITE);
        final AclBinding payWrite = topicAcl("payments", "User:app", AclOperation.WRITE);
        source.acls.addAll(List.of(read, write, payWrite));
        start(Map.of(MirrorAclSyncConfig.ENABLE_CONFIG, "true"));
        assertEquals(Set.of(write, payWrite), held());
        manager.close();
        manager = null;
        apis.close();

        final Controller restarted = new Controller(log, clock, Map.of("default.replication.factor", "2"),
            Controller.seededTopicIds(4));
        assertEquals(controller.snapshotRecords(), restarted.snapshotRecords(), "the entries are replayed whole");
        final long before = log.endOffset();
        final MirrorOpResult failover = restarted.removeTopicFromMirror("orders", MIRROR);
        assertEquals(Errors.NONE, failover.error());
        assertTrue(failover.messageOrDefault().startsWith("1 ACL(s)"), failover.message());
        int batches = 0;
        for (final org.apache.kafka.common.record.internal.RecordBatch batch : log.read(before, Integer.MAX_VALUE)
            .batches())
        {
            batches++;
            assertEquals(before, batch.baseOffset());
        }
        assertEquals(1, batches, "the grant, the entries' removal and mirror.name in one batch");
        assertEquals(Set.of(read, write), aclsInForce(restarted), "payments is still a read-only mirror topic");
        assertEquals(Set.of(payWrite.pattern().name()), restarted.mirrorAcls(MIRROR).stream()
            .map(e -> e.acl().resourceName()).collect(Collectors.toSet()), "orders' ACLs are no longer the mirror's");
        assertFalse(restarted.mirrorAcls(MIRROR).isEmpty());
    }

    @Test
    @DisplayName("A source without an authorizer is the mirror's last error, naming it; the topics still sync")
    void shouldReportASourceWithoutAnAuthorizer() throws Exception
    {
        source.authorizer = false;
        start(Map.of(MirrorAclSyncConfig.ENABLE_CONFIG, "true"));
        assertTrue(manager.lastError(MIRROR).orElseThrow().contains("no authorizer"), manager.lastError(MIRROR)
            .toString());
        assertEquals(ORDERS_ID, onController(c -> c.topicId("orders")).orElseThrow());
    }

    @Test
    @DisplayName("Deleting a mirror forgets its entries and leaves its ACLs in force as this cluster's own")
    void shouldForgetEntriesWhenTheMirrorIsDeleted() throws Exception
    {
        final AclBinding read = topicAcl("orders", "User:reader", AclOperation.READ);
        source.acls.addAll(List.of(read, topicAcl("orders", "User:w", AclOperation.WRITE)));
        start(Map.of(MirrorAclSyncConfig.ENABLE_CONFIG, "true"));
        manager.close();
        manager = null;
        for (final String topic : List.of("orders", "payments"))
        {
            assertEquals(Errors.NONE, onController(c -> c.removeTopicFromMirror(topic, MIRROR)).error());
        }
        assertEquals(MirrorOpResult.OK, onController(c -> c.deleteMirror(MIRROR)));
        assertEquals(List.of(), onController(c -> c.mirrorAcls(MIRROR)));
        assertEquals(Set.of(read, topicAcl("orders", "User:w", AclOperation.WRITE)), aclsHere());
    }
}
