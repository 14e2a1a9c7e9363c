package io.syncmirror.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReplicaListInternerTest
{
    @Test
    @DisplayName("equal lists from anywhere come back as one immutable list, which a later change of the input "
        + "does not touch")
    void shouldShareOneImmutableListPerValue()
    {
        final ReplicaListInterner interner = new ReplicaListInterner(16);
        final List<Integer> mutable = new ArrayList<>(List.of(3, 1, 2));
        final List<Integer> first = interner.intern(mutable);
        mutable.set(0, 9);
        assertEquals(List.of(3, 1, 2), first);
        assertSame(first, interner.intern(List.of(3, 1, 2)));
        assertSame(first, interner.intern(new ArrayList<>(List.of(3, 1, 2))));
        assertEquals(List.of(1, 2, 3), interner.intern(List.of(1, 2, 3)), "another ordering is another list");
        assertEquals(2, interner.size());
        assertThrows(UnsupportedOperationException.class, () -> first.add(4));
        assertNull(interner.intern(null));
    }

    @Test
    @DisplayName("past its capacity the interner copies new lists without keeping them, and still shares the "
        + "known ones")
    void shouldStopKeepingListsAtCapacity()
    {
        final ReplicaListInterner interner = new ReplicaListInterner(2);
        final List<Integer> a = interner.intern(List.of(1));
        interner.intern(List.of(2));
        final List<Integer> mutable = new ArrayList<>(List.of(3));
        final List<Integer> c = interner.intern(mutable);
        mutable.set(0, 4);
        assertEquals(List.of(3), c);
        assertNotSame(c, interner.intern(List.of(3)));
        assertEquals(2, interner.size());
        assertSame(a, interner.intern(new ArrayList<>(List.of(1))));
    }

    @Test
    @DisplayName("partition states built from separate lists of the same brokers share their replica and ISR lists")
    void shouldShareListsBetweenPartitionStates()
    {
        final Uuid id = Uuid.randomUuid();
        final PartitionState p0 = new PartitionState("t", id, 0, new ArrayList<>(List.of(1, 2, 3)), List.of(1, 2, 3),
            1, 0, 0);
        final PartitionState p1 = new PartitionState("t", id, 1, new ArrayList<>(List.of(1, 2, 3)),
            new ArrayList<>(List.of(1, 2, 3)), 1, 0, 0);
        assertSame(p0.replicas(), p1.replicas());
        assertSame(p0.replicas(), p0.isr());
        assertSame(p0.isr(), p1.isr());
    }
}
