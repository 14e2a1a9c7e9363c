package io.syncmirror.hwgate;

/**
 * Wakes a {@link RequestShard}'s owner thread that announced it is going idle, when another thread completes one
 * of its requests. Called at most once per idle period; implementations must not block (unpark a thread, or
 * schedule a pre-allocated task on an event loop).
 */
@FunctionalInterface
public interface OwnerWakeup
{
    OwnerWakeup NONE = () -> {};

    void wake();
}
