package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.authorizer.StandardAcl;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The ACLs each mirror's ACL sync keeps on this (destination) cluster, as {@link MetadataRecord.MirrorAcl}
 * entries beside the ACLs in force ({@link AclControl}). An entry is either in force (its ACL is in the ACLs;
 * {@code created} when the sync wrote it) or held: a grant on a read-only mirror topic that failover puts in force.
 * Being records, the held grants survive controller restarts and failovers of the metadata quorum, so a topic
 * failed over by any controller gets its producers' grants.
 *
 * <p>Ownership: an ACL is removed when the source drops it only if the sync wrote it; one that was already here
 * (an operator's own) stays. The last entry of an ACL the sync wrote carries {@code created}, so two mirrors
 * copying the same ACL do not remove it from under each other.
 *
 * <p>Thread-safety: the controller's event thread, as all controller state.
 */
final class MirrorAclControl
{
    private final AclControl acls;
    private final MetadataWriter writer;
    private final Supplier<Uuid> ids;
    /** Every mirror's entries, by entry id, sorted: a snapshot writes them in one order. */
    private final Map<Uuid, MetadataRecord.MirrorAcl> entries = new TreeMap<>();

    MirrorAclControl(final AclControl acls, final MetadataWriter writer, final Supplier<Uuid> ids)
    {
        this.acls = acls;
        this.writer = writer;
        this.ids = ids;
    }

    void replay(final MetadataRecord.MirrorAcl record)
    {
        entries.put(record.id(), record);
    }

    void replay(final MetadataRecord.RemoveMirrorAcl record)
    {
        entries.remove(record.id());
    }

    void snapshot(final Consumer<MetadataRecord> out)
    {
        entries.values().forEach(out);
    }

    /** What one sync changed; {@code changed} when it emitted any record. */
    record SyncCounts(int added, int removed, int inForce, int held, boolean changed)
    {
        @Override
        public String toString()
        {
            return added + " ACL(s) added, " + removed + " removed; " + inForce + " in force, " + held + " held "
                + "until failover";
        }
    }

    /**
     * Makes mirror {@code mirrorName}'s entries exactly {@code inForce} (put in force) and {@code held} (kept
     * back), emitting the records; the caller commits. An ACL the source dropped is removed when the sync wrote
     * it; one that should be in force but was deleted here is written again (as config sync overrides changes).
     */
    SyncCounts sync(final String mirrorName, final Set<StandardAcl> inForce, final Set<StandardAcl> held)
    {
        final long before = writer.nextOffset();
        final Map<StandardAcl, MetadataRecord.MirrorAcl> currentInForce = new HashMap<>();
        final Map<StandardAcl, MetadataRecord.MirrorAcl> currentHeld = new HashMap<>();
        for (final MetadataRecord.MirrorAcl entry : mirrorEntries(mirrorName))
        {
            (entry.held() ? currentHeld : currentInForce).put(entry.acl().acl(), entry);
        }
        int added = 0;
        int removed = 0;
        for (final Map.Entry<StandardAcl, MetadataRecord.MirrorAcl> e : currentInForce.entrySet())
        {
            if (!inForce.contains(e.getKey()))
            {
                removed += drop(e.getValue());
            }
        }
        for (final Map.Entry<StandardAcl, MetadataRecord.MirrorAcl> e : currentHeld.entrySet())
        {
            if (!held.contains(e.getKey()))
            {
                writer.emit(new MetadataRecord.RemoveMirrorAcl(e.getValue().id()));
            }
        }
        for (final StandardAcl acl : inForce)
        {
            final MetadataRecord.MirrorAcl entry = currentInForce.get(acl);
            if (acls.idOf(acl) == null)
            {
                // New, or deleted here since: write it, and own it.
                writer.emit(MetadataRecord.Acl.of(acls.newId(), acl));
                writer.emit(new MetadataRecord.MirrorAcl(mirrorName, false, true,
                    MetadataRecord.Acl.of(entry == null ? newEntryId() : entry.id(), acl)));
                added++;
            }
            else if (entry == null)
            {
                writer.emit(new MetadataRecord.MirrorAcl(mirrorName, false, false,
                    MetadataRecord.Acl.of(newEntryId(), acl)));
            }
        }
        for (final StandardAcl acl : held)
        {
            if (!currentHeld.containsKey(acl))
            {
                writer.emit(new MetadataRecord.MirrorAcl(mirrorName, true, false,
                    MetadataRecord.Acl.of(newEntryId(), acl)));
            }
        }
        return new SyncCounts(added, removed, inForce.size(), held.size(), writer.nextOffset() != before);
    }

    /**
     * Failover of {@code topic} out of mirror {@code mirrorName}: its held grants are put in force, and the
     * mirror stops keeping any of the topic's ACLs (they are this cluster's own from now on). Emits the records;
     * the caller commits them in the same batch as the topic's change.
     */
    int grantAtFailover(final String mirrorName, final String topic)
    {
        int granted = 0;
        for (final MetadataRecord.MirrorAcl entry : mirrorEntries(mirrorName))
        {
            final StandardAcl acl = entry.acl().acl();
            if (acl.resourceType() != ResourceType.TOPIC || acl.patternType() != PatternType.LITERAL
                || !acl.resourceName().equals(topic))
            {
                continue;
            }
            if (entry.held() && acls.idOf(acl) == null)
            {
                writer.emit(MetadataRecord.Acl.of(acls.newId(), acl));
                granted++;
            }
            writer.emit(new MetadataRecord.RemoveMirrorAcl(entry.id()));
        }
        return granted;
    }

    /** The mirror is deleted: its entries go, the ACLs in force stay (this cluster's own from now on). */
    void forget(final String mirrorName)
    {
        mirrorEntries(mirrorName).forEach(entry -> writer.emit(new MetadataRecord.RemoveMirrorAcl(entry.id())));
    }

    /** Mirror {@code mirrorName}'s entries: in force and held. */
    List<MetadataRecord.MirrorAcl> mirrorEntries(final String mirrorName)
    {
        final List<MetadataRecord.MirrorAcl> out = new ArrayList<>();
        for (final MetadataRecord.MirrorAcl entry : entries.values())
        {
            if (entry.mirrorName().equals(mirrorName))
            {
                out.add(entry);
            }
        }
        return out;
    }

    /** Removes an entry in force; removes its ACL too when the sync wrote it and no other entry keeps it. */
    private int drop(final MetadataRecord.MirrorAcl entry)
    {
        writer.emit(new MetadataRecord.RemoveMirrorAcl(entry.id()));
        if (!entry.created())
        {
            return 0;
        }
        final StandardAcl acl = entry.acl().acl();
        final MetadataRecord.MirrorAcl keeper = entries.values().stream()
            .filter(other -> !other.held() && other.acl().acl().equals(acl)).findFirst().orElse(null);
        if (keeper != null)
        {
            // Another mirror keeps it: that entry owns it now.
            writer.emit(new MetadataRecord.MirrorAcl(keeper.mirrorName(), false, true, keeper.acl()));
            return 0;
        }
        final Uuid aclId = acls.idOf(acl);
        if (aclId == null)
        {
            return 0;
        }
        writer.emit(new MetadataRecord.RemoveAcl(aclId));
        return 1;
    }

    private Uuid newEntryId()
    {
        Uuid id;
        do
        {
            id = ids.get();
        }
        while (entries.containsKey(id) || Uuid.RESERVED.contains(id));
        return id;
    }
}
