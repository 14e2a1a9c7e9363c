package io.syncmirror.hwgate;

/**
 * Receives finished produce requests on the thread that owns their {@link RequestShard}, outside any lock.
 */
@FunctionalInterface
public interface ProduceCompletionHandler
{
    /**
     * Every wait of {@code request} has its outcome. Read them with {@link RequestShard#firstCell(int)},
     * {@link RequestShard#nextCell(int)} and {@link RequestShard#cellOutcome(int)} during this call; the request
     * and its cells are recycled when it returns.
     */
    void onProduceComplete(RequestShard shard, int request, long cookie);
}
