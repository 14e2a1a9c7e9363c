package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.BrokerRegistrationResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The controller's brokers, as Kafka's {@code ClusterControlManager} keeps them: each registration
 * ({@link MetadataRecord.RegisterBroker}) with its epoch and fencing ({@link MetadataRecord.FenceBroker},
 * {@link MetadataRecord.UnfenceBroker}), and beside them what the log does not hold: when each broker last
 * heartbeated (its session) and the metadata offset it last reported applied. Fencing a broker changes partitions
 * too, so the records that fence and unfence are written by {@link ReplicationControl}; the registration rules are
 * here. Thread-safety: the controller's event thread, as all controller state.
 *
 * <p>A broker's epoch is the metadata offset of its RegisterBroker record, so it grows with every registration,
 * also across controller restarts. A registration starts fenced.
 */
final class ClusterControl
{
    private final LongSupplier nowMs;
    private final String clusterId;
    private final long sessionTimeoutMs;

    private final TreeMap<Integer, Broker> brokers = new TreeMap<>();
    /** When each broker last heartbeated (this controller's clock); not persisted. */
    private final Map<Integer, Long> lastHeartbeatMs = new HashMap<>();
    /** The metadata offset each broker last reported applied (its heartbeats); not persisted. */
    private final Map<Integer, Long> appliedMetadataOffsets = new HashMap<>();
    /**
     * Waits for every active broker to apply a metadata offset, by offset: completed by the heartbeat (or the
     * fencing) that makes it so. Not persisted: a new active controller's callers time out and retry.
     */
    private final TreeMap<Long, List<CompletableFuture<Void>>> appliedWaiters = new TreeMap<>();

    ClusterControl(final LongSupplier nowMs, final String clusterId, final long sessionTimeoutMs)
    {
        this.nowMs = nowMs;
        this.clusterId = clusterId;
        this.sessionTimeoutMs = sessionTimeoutMs;
    }

    void replay(final MetadataRecord.RegisterBroker r)
    {
        brokers.put(r.brokerId(), new Broker(r.brokerId(), r.brokerEpoch(), r.incarnationId(),
            r.endpoint()));
        lastHeartbeatMs.put(r.brokerId(), nowMs.getAsLong());
    }

    void replay(final MetadataRecord.FenceBroker r)
    {
        final Broker broker = brokers.get(r.brokerId());
        if (broker != null && broker.epoch == r.brokerEpoch())
        {
            broker.fenced = true;
            completeAppliedWaiters(); // a fenced broker is not waited for
        }
    }

    void replay(final MetadataRecord.UnfenceBroker r)
    {
        final Broker broker = brokers.get(r.brokerId());
        if (broker != null && broker.epoch == r.brokerEpoch())
        {
            broker.fenced = false;
            // A broker unfenced by the log on replay gets a fresh session from the replay's time.
            lastHeartbeatMs.put(r.brokerId(), nowMs.getAsLong());
        }
    }

    /** The records that restore this state: every registration, and an unfencing where the broker is unfenced. */
    void snapshot(final Consumer<MetadataRecord> out)
    {
        for (final Broker broker : brokers.values())
        {
            final BrokerEndpoint e = broker.endpoint;
            out.accept(new MetadataRecord.RegisterBroker(broker.id, broker.epoch, broker.incarnationId, e.host(),
                e.port(), e.rack(), e.listeners()));
            if (!broker.fenced)
            {
                out.accept(new MetadataRecord.UnfenceBroker(broker.id, broker.epoch));
            }
        }
    }

    /**
     * The answer to a registration that needs no new record (a wrong cluster id, a retry of one that committed, a
     * live broker of that id under another incarnation, no listener), or null when it is to be recorded.
     */
    BrokerRegistrationResponseData registrationAnswer(final BrokerRegistrationRequestData request)
    {
        final BrokerRegistrationResponseData response = new BrokerRegistrationResponseData();
        if (clusterId != null && request.clusterId() != null && !clusterId.equals(request.clusterId()))
        {
            return response.setErrorCode(Errors.INCONSISTENT_CLUSTER_ID.code()).setBrokerEpoch(-1);
        }
        final Broker existing = brokers.get(request.brokerId());
        if (existing != null && existing.incarnationId.equals(request.incarnationId()))
        {
            // A retry of a registration that already committed.
            return response.setBrokerEpoch(existing.epoch);
        }
        if (existing != null && !existing.fenced && !sessionExpired(existing.id)
            && request.previousBrokerEpoch() != existing.epoch)
        {
            return response.setErrorCode(Errors.DUPLICATE_BROKER_REGISTRATION.code()).setBrokerEpoch(-1);
        }
        if (request.listeners().isEmpty())
        {
            return response.setErrorCode(Errors.INVALID_REQUEST.code()).setBrokerEpoch(-1);
        }
        return null;
    }

    /** Records a heartbeat of {@code brokerId}: a fresh session from now, and the metadata offset it applied. */
    void onHeartbeat(final int brokerId, final long appliedMetadataOffset)
    {
        lastHeartbeatMs.put(brokerId, nowMs.getAsLong());
        appliedMetadataOffsets.put(brokerId, appliedMetadataOffset);
        completeAppliedWaiters();
    }

    /**
     * Gives every registered broker a fresh session from now: a controller that has just become active never
     * saw the heartbeats sent to its predecessor, and must not fence brokers for their absence.
     */
    void resetSessions()
    {
        final long now = nowMs.getAsLong();
        brokers.keySet().forEach(id -> lastHeartbeatMs.put(id, now));
    }

    /** The unfenced brokers whose last heartbeat is older than broker.session.timeout.ms. */
    List<Broker> expiredSessions()
    {
        final List<Broker> out = new ArrayList<>();
        for (final Broker broker : brokers.values())
        {
            if (!broker.fenced && sessionExpired(broker.id))
            {
                out.add(broker);
            }
        }
        return out;
    }

    /** Milliseconds since the broker's last heartbeat, or -1 when none was seen by this controller. */
    long sinceLastHeartbeatMs(final int brokerId)
    {
        final Long last = lastHeartbeatMs.get(brokerId);
        return last == null ? -1L : nowMs.getAsLong() - last;
    }

    private boolean sessionExpired(final int brokerId)
    {
        final Long last = lastHeartbeatMs.get(brokerId);
        return last == null || nowMs.getAsLong() - last > sessionTimeoutMs;
    }

    /** The broker registered under {@code brokerId}, or null. */
    Broker broker(final int brokerId)
    {
        return brokers.get(brokerId);
    }

    boolean isRegistered(final int brokerId)
    {
        return brokers.containsKey(brokerId);
    }

    /** Whether the broker is registered and not fenced. */
    boolean isLive(final int brokerId)
    {
        final Broker broker = brokers.get(brokerId);
        return broker != null && !broker.fenced;
    }

    /** The ids of the registered, unfenced brokers, ascending. */
    List<Integer> liveBrokers()
    {
        final List<Integer> live = new ArrayList<>();
        for (final Broker broker : brokers.values())
        {
            if (!broker.fenced)
            {
                live.add(broker.id);
            }
        }
        return live;
    }

    /** Whether every registered, unfenced broker has reported applying the metadata log up to {@code offset}. */
    boolean appliedByAllActiveBrokers(final long offset)
    {
        for (final Broker broker : brokers.values())
        {
            if (!broker.fenced && appliedMetadataOffsets.getOrDefault(broker.id, -1L) < offset)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Completes once every registered, unfenced broker has reported applying the metadata log up to {@code offset}
     * (at once if they have); a caller that gives up cancels it.
     */
    CompletableFuture<Void> whenAppliedByAllActiveBrokers(final long offset)
    {
        if (appliedByAllActiveBrokers(offset))
        {
            return CompletableFuture.completedFuture(null);
        }
        final CompletableFuture<Void> waiter = new CompletableFuture<>();
        appliedWaiters.computeIfAbsent(offset, o -> new ArrayList<>()).add(waiter);
        return waiter;
    }

    private void completeAppliedWaiters()
    {
        if (appliedWaiters.isEmpty())
        {
            return;
        }
        long applied = Long.MAX_VALUE;
        for (final Broker broker : brokers.values())
        {
            if (!broker.fenced)
            {
                applied = Math.min(applied, appliedMetadataOffsets.getOrDefault(broker.id, -1L));
            }
        }
        final Map<Long, List<CompletableFuture<Void>>> reached = appliedWaiters.headMap(applied, true);
        reached.values().forEach(waiters -> waiters.forEach(waiter -> waiter.complete(null)));
        reached.clear();
        appliedWaiters.values().removeIf(waiters ->
        {
            waiters.removeIf(CompletableFuture::isDone); // given up on
            return waiters.isEmpty();
        });
    }

    Collection<BrokerEndpoint> endpoints()
    {
        final List<BrokerEndpoint> out = new ArrayList<>();
        for (final Broker broker : brokers.values())
        {
            out.add(broker.endpoint);
        }
        return out;
    }

    String clusterId()
    {
        return clusterId;
    }

    long sessionTimeoutMs()
    {
        return sessionTimeoutMs;
    }

    /** One registered broker; {@code fenced} changes only by replay. */
    static final class Broker
    {
        final int id;
        final long epoch;
        final Uuid incarnationId;
        final BrokerEndpoint endpoint;
        boolean fenced = true;

        Broker(final int id, final long epoch, final Uuid incarnationId, final BrokerEndpoint endpoint)
        {
            this.id = id;
            this.epoch = epoch;
            this.incarnationId = incarnationId;
            this.endpoint = endpoint;
        }
    }
}
