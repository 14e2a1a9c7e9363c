package io.syncmirror.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;

class TopicConfigControlTest
{
    private static AlterableConfig op(final String key, final AlterConfigOp.OpType type, final String value)
    {
        return new AlterableConfig().setName(key).setConfigOperation(type.id()).setValue(value);
    }

    @Test
    @DisplayName("IncrementalAlterConfigs operations as Kafka applies them: SET, DELETE, APPEND and SUBTRACT on a "
        + "list key starting from its default, and errors for a non-list APPEND, an unknown key and mirror.name")
    void shouldApplyKafkasConfigOperations()
    {
        final TreeMap<String, String> set = TopicConfigControl.applyConfigOps(Map.of("retention.ms", "1000"),
            List.of(op("segment.bytes", AlterConfigOp.OpType.SET, "1048576"),
                op("retention.ms", AlterConfigOp.OpType.DELETE, null)));
        assertEquals(Map.of("segment.bytes", "1048576"), set);

        final TreeMap<String, String> appended = TopicConfigControl.applyConfigOps(Map.of(),
            List.of(op("cleanup.policy", AlterConfigOp.OpType.APPEND, "compact")));
        assertEquals("delete,compact", appended.get("cleanup.policy"), "appended to the default 'delete'");
        final TreeMap<String, String> subtracted = TopicConfigControl.applyConfigOps(appended,
            List.of(op("cleanup.policy", AlterConfigOp.OpType.SUBTRACT, "delete")));
        assertEquals("compact", subtracted.get("cleanup.policy"));

        assertThrows(InvalidConfigurationException.class, () -> TopicConfigControl.applyConfigOps(Map.of(),
            List.of(op("retention.ms", AlterConfigOp.OpType.APPEND, "5"))));
        assertThrows(InvalidConfigurationException.class, () -> TopicConfigControl.applyConfigOps(Map.of(),
            List.of(op("no.such.key", AlterConfigOp.OpType.SET, "1"))));
        final InvalidConfigurationException protectedKey = assertThrows(InvalidConfigurationException.class,
            () -> TopicConfigControl.applyConfigOps(Map.of(), List.of(op(MirrorDefinition.MIRROR_NAME_CONFIG,
                AlterConfigOp.OpType.SET, "m"))));
        assertTrue(protectedKey.getMessage().contains("managed by cluster mirroring"), protectedKey.getMessage());
    }

    @Test
    @DisplayName("the records to reach a target are one per changed key (a removed key as a null value); replayed, "
        + "they give the target, and a deleted topic takes its overrides with it")
    void shouldDiffReplayAndDropOverrides()
    {
        final TopicConfigControl control = new TopicConfigControl();
        control.replay(new MetadataRecord.Config("t", "retention.ms", "1000"));
        control.replay(new MetadataRecord.Config("t", "segment.bytes", "1048576"));
        final Map<String, String> target = Map.of("retention.ms", "2000", "cleanup.policy", "compact");

        final List<MetadataRecord.Config> changes = control.changesTo("t", target);
        assertEquals(List.of(new MetadataRecord.Config("t", "cleanup.policy", "compact"),
            new MetadataRecord.Config("t", "retention.ms", "2000"),
            new MetadataRecord.Config("t", "segment.bytes", null)), changes);
        changes.forEach(control::replay);
        assertEquals(target, control.view("t"));
        assertEquals(List.of(), control.changesTo("t", target), "nothing to write once in force");
        assertEquals(List.of("t"), control.topicsWith("cleanup.policy", "compact"));

        control.removeTopic("t");
        assertEquals(Map.of(), control.view("t"));
    }
}
