package io.syncmirror.broker.controller;

import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.server.authorizer.AclCreateResult;
import org.apache.kafka.server.authorizer.AclDeleteResult;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.MetadataRecord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CreateAcls and DeleteAcls on the controller: Kafka's validation and messages, idempotent creation, filters. */
class AclControlTest
{
    private final AclControl acls = new AclControl(Controller.seededTopicIds(7));

    private static AclBinding binding(final ResourceType type, final String name, final PatternType pattern,
        final String principal, final String host, final AclOperation operation, final AclPermissionType permission)
    {
        return new AclBinding(new ResourcePattern(type, name, pattern), new AccessControlEntry(principal, host,
            operation, permission));
    }

    private static AclBinding readOrders(final String principal)
    {
        return binding(ResourceType.TOPIC, "orders", PatternType.LITERAL, principal, "*", AclOperation.READ,
            AclPermissionType.ALLOW);
    }

    private void replay(final List<MetadataRecord> records)
    {
        records.forEach(r ->
        {
            if (r instanceof MetadataRecord.Acl acl)
            {
                acls.replay(acl);
            }
            else
            {
                acls.replay((MetadataRecord.RemoveAcl)r);
            }
        });
    }

    @Test
    @DisplayName("Kafka's refusals of a new ACL (resource type, pattern type, operation, permission, empty name, "
        + "empty host, a malformed CIDR block) with its messages; an ACL that exists already succeeds and writes "
        + "nothing, twice in one request writes once")
    void shouldValidateAsKafkaDoes()
    {
        final AclControl.Outcome<AclCreateResult> refused = acls.create(List.of(
            binding(ResourceType.UNKNOWN, "x", PatternType.LITERAL, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW),
            binding(ResourceType.TOPIC, "x", PatternType.UNKNOWN, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW),
            binding(ResourceType.TOPIC, "x", PatternType.LITERAL, "User:a", "*", AclOperation.UNKNOWN,
                AclPermissionType.ALLOW),
            binding(ResourceType.TOPIC, "x", PatternType.LITERAL, "User:a", "*", AclOperation.READ,
                AclPermissionType.UNKNOWN),
            binding(ResourceType.TOPIC, "", PatternType.LITERAL, "User:a", "*", AclOperation.READ,
                AclPermissionType.ALLOW),
            binding(ResourceType.TOPIC, "x", PatternType.LITERAL, "User:a", "", AclOperation.READ,
                AclPermissionType.ALLOW),
            binding(ResourceType.TOPIC, "x", PatternType.LITERAL, "User:a", "10.0.0.0/99", AclOperation.READ,
                AclPermissionType.ALLOW)));
        assertTrue(refused.records().isEmpty());
        final List<String> messages = refused.results().stream().map(r ->
            assertInstanceOf(InvalidRequestException.class, r.exception().orElseThrow()).getMessage()).toList();
        assertEquals("Invalid resourceType UNKNOWN", messages.get(0));
        assertEquals("Invalid patternType UNKNOWN", messages.get(1));
        assertEquals("Invalid operation UNKNOWN", messages.get(2));
        assertEquals("Invalid permissionType UNKNOWN", messages.get(3));
        assertEquals("Resource name should not be empty", messages.get(4));
        assertEquals("Host pattern cannot be null or empty", messages.get(5));
        assertTrue(messages.get(6).startsWith("Invalid CIDR host pattern 10.0.0.0/99"), messages.get(6));

        final AclControl.Outcome<AclCreateResult> created = acls.create(List.of(readOrders("User:a"),
            readOrders("User:a"), binding(ResourceType.GROUP, "app-", PatternType.PREFIXED, "User:a", "10.0.0.0/8",
                AclOperation.READ, AclPermissionType.ALLOW)));
        assertEquals(2, created.records().size(), "one record per distinct ACL: " + created.records());
        assertTrue(created.results().stream().allMatch(r -> r.exception().isEmpty()));
        replay(created.records());
        final AclControl.Outcome<AclCreateResult> again = acls.create(List.of(readOrders("User:a")));
        assertTrue(again.records().isEmpty(), "an existing ACL writes nothing");
        assertTrue(again.results().get(0).exception().isEmpty());
    }

    @Test
    @DisplayName("DeleteAcls removes what each filter matches, answers the matched ACLs per filter, writes one "
        + "removal per ACL however many filters match it, and refuses an unknown filter")
    void shouldDeleteWhatFiltersMatch()
    {
        replay(acls.create(List.of(readOrders("User:a"), readOrders("User:b"),
            binding(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:a", "*", AclOperation.WRITE,
                AclPermissionType.ALLOW))).records());
        final AclBindingFilter ofA = new AclBindingFilter(ResourcePatternFilter.ANY,
            new AccessControlEntryFilter("User:a", null, AclOperation.ANY, AclPermissionType.ANY));
        final AclBindingFilter reads = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC, "orders",
            PatternType.LITERAL), new AccessControlEntryFilter(null, null, AclOperation.READ, AclPermissionType.ANY));
        final AclBindingFilter unknown = new AclBindingFilter(new ResourcePatternFilter(ResourceType.UNKNOWN, null,
            PatternType.ANY), AccessControlEntryFilter.ANY);
        final AclControl.Outcome<AclDeleteResult> deleted = acls.delete(List.of(ofA, reads, unknown));
        assertEquals(2, deleted.results().get(0).aclBindingDeleteResults().size());
        assertEquals(2, deleted.results().get(1).aclBindingDeleteResults().size());
        assertInstanceOf(InvalidRequestException.class, deleted.results().get(2).exception().orElseThrow());
        assertEquals(3, deleted.records().size(), "each ACL removed once: " + deleted.records());
        replay(deleted.records());
        assertEquals(0, acls.size());
    }

    @Test
    @DisplayName("new ACL ids come from the controller's id source, never one in use")
    void shouldGiveFreshIds()
    {
        final List<MetadataRecord> first = acls.create(List.of(readOrders("User:a"))).records();
        replay(first);
        final Uuid id = ((MetadataRecord.Acl)first.get(0)).id();
        final List<MetadataRecord> second = acls.create(List.of(readOrders("User:b"))).records();
        assertTrue(!id.equals(((MetadataRecord.Acl)second.get(0)).id()));
    }
}
