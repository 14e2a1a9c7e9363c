package io.syncmirror.broker.mirror.sync;

import io.syncmirror.protocol.MirrorPartitionState;

/** A mirror partition led by another broker: its state, lag, and how long its sync reports have failed. */
public record RemotePartition(MirrorPartitionState state, long lag, long syncFailingForMs)
{
}
