package io.syncmirror.broker.coordinator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Creates a coordinator's internal topic at most once at a time: callers share the creation in progress or done,
 * and a failed creation is tried again by the next caller. Thread-safety: any thread.
 */
final class InternalTopicCreation
{
    private final AtomicReference<CompletableFuture<Void>> creation = new AtomicReference<>();

    /** The shared creation; {@code create} starts one when there is none, or the last one failed. */
    CompletableFuture<Void> ensure(final Supplier<CompletableFuture<Void>> create)
    {
        final CompletableFuture<Void> existing = creation.get();
        if (existing != null && !existing.isCompletedExceptionally())
        {
            return existing;
        }
        final CompletableFuture<Void> created = new CompletableFuture<>();
        if (!creation.compareAndSet(existing, created))
        {
            return creation.get();
        }
        create.get().whenComplete((ok, error) ->
        {
            if (error == null)
            {
                created.complete(null);
            }
            else
            {
                created.completeExceptionally(error);
            }
        });
        return created;
    }
}
