package io.syncmirror.bench.e2e;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TopologyTest
{
    @Test
    void shouldReadOneBrokerWithoutReplication()
    {
        assertEquals(new Topology("1x1", 1, (short)1, 1), Topology.parse("1x1"));
    }

    @Test
    void shouldRequireTwoInSyncReplicasOfThree()
    {
        assertEquals(new Topology("3x3", 3, (short)3, 2), Topology.parse(" 3x3 "));
    }

    @Test
    void shouldAllowFewerReplicasThanBrokers()
    {
        assertEquals(new Topology("3x1", 3, (short)1, 1), Topology.parse("3x1"));
    }

    @Test
    void shouldRejectMalformedOrImpossibleShapes()
    {
        for (final String bad : new String[]{ "3", "3x", "x3", "ax1", "3x3x3", "0x0", "3x4", "6x1", "1x0", "" })
        {
            assertThrows(IllegalArgumentException.class, () -> Topology.parse(bad), bad);
        }
    }
}
