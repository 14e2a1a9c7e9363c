package io.syncmirror.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.WritableByteChannel;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * A Kafka {@link Send} (size prefix, header and body, with records possibly still in their log segment files)
 * presented to Netty as a {@link FileRegion}, so that a Fetch response over {@code FileRecords} goes from the
 * page cache to the socket with {@code FileChannel.transferTo} and is never copied onto the heap. Not
 * thread-safe: written by its channel's event loop only.
 */
final class SendFileRegion extends AbstractReferenceCounted implements FileRegion
{
    private final Send send;
    private long transferredBytes;

    SendFileRegion(final Send send)
    {
        this.send = send;
    }

    @Override
    public long position()
    {
        return 0;
    }

    @Override
    public long transferred()
    {
        return transferredBytes;
    }

    /** Netty's misspelt predecessor of {@link #transferred()}, still abstract in the interface. */
    @Deprecated
    @Override
    public long transfered()
    {
        return transferredBytes;
    }

    @Override
    public long count()
    {
        return send.size();
    }

    @Override
    public long transferTo(final WritableByteChannel target, final long position) throws IOException
    {
        if (send.completed())
        {
            return 0;
        }
        final long written = send.writeTo(new Target(target));
        transferredBytes += written;
        return written;
    }

    @Override
    public FileRegion retain()
    {
        super.retain();
        return this;
    }

    @Override
    public FileRegion retain(final int increment)
    {
        super.retain(increment);
        return this;
    }

    @Override
    public FileRegion touch()
    {
        return this;
    }

    @Override
    public FileRegion touch(final Object hint)
    {
        return this;
    }

    @Override
    protected void deallocate()
    {
        // Records belong to the log (file segments or heap buffers); nothing here owns a resource to free.
    }

    /**
     * A byte channel (the socket, or {@link SendChunks}' buffer) as Kafka's {@link TransferableChannel}: nothing is
     * ever left pending in it.
     */
    static final class Target implements TransferableChannel
    {
        private final WritableByteChannel channel;

        Target(final WritableByteChannel channel)
        {
            this.channel = channel;
        }

        @Override
        public boolean hasPendingWrites()
        {
            return false;
        }

        @Override
        public long transferFrom(final FileChannel fileChannel, final long position, final long count) throws IOException
        {
            return fileChannel.transferTo(position, count, channel);
        }

        @Override
        public long write(final ByteBuffer[] srcs, final int offset, final int length) throws IOException
        {
            if (channel instanceof GatheringByteChannel gathering)
            {
                return gathering.write(srcs, offset, length);
            }
            long written = 0;
            for (int i = offset; i < offset + length; i++)
            {
                final int remaining = srcs[i].remaining();
                final int n = channel.write(srcs[i]);
                written += n;
                if (n < remaining)
                {
                    break;
                }
            }
            return written;
        }

        @Override
        public long write(final ByteBuffer[] srcs) throws IOException
        {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(final ByteBuffer src) throws IOException
        {
            return channel.write(src);
        }

        @Override
        public boolean isOpen()
        {
            return channel.isOpen();
        }

        @Override
        public void close() throws IOException
        {
            channel.close();
        }
    }
}
