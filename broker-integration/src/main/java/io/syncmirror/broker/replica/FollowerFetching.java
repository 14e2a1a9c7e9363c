package io.syncmirror.broker.replica;

/**
 * Where the replica manager hands partitions it follows: fetchers that pull from each partition's leader.
 * Thread-safety: any thread.
 */
public interface FollowerFetching extends AutoCloseable
{
    /** Follow {@code partition} from broker {@code leaderId} in {@code leaderEpoch}, replacing an earlier leader. */
    void follow(Partition partition, int leaderId, int leaderEpoch);

    /** Stop fetching {@code partition} (it became leader, has no leader, or left this broker). */
    void unfollow(Partition partition);

    @Override
    void close();
}
