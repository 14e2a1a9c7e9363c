package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MirrorTypeTest
{
    @Test
    void shouldUseTheSpecWireIds()
    {
        assertEquals(0, MirrorType.ASYNC.id());
        assertEquals(1, MirrorType.SYNC.id());
        assertEquals(MirrorType.SYNC, MirrorType.fromId((byte)1));
        assertEquals(MirrorType.ASYNC, MirrorType.fromId((byte)0));
        assertThrows(IllegalArgumentException.class, () -> MirrorType.fromId((byte)2));
    }

    @Test
    void shouldParseNamesCaseInsensitivelyAndTreatNullOrEmptyAsAsync()
    {
        assertEquals(MirrorType.ASYNC, MirrorType.fromString(null));
        assertEquals(MirrorType.ASYNC, MirrorType.fromString(""));
        assertEquals(MirrorType.SYNC, MirrorType.fromString("sync"));
        assertEquals(MirrorType.ASYNC, MirrorType.fromString("Async"));
        assertThrows(IllegalArgumentException.class, () -> MirrorType.fromString("semi"));
    }
}
