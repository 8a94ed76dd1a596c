import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The fault tests' oracle reader: Apache Kafka's own Java consumer reads whole topics, from the
 * beginning to the end offsets they had when it started (for read_committed, the last stable offset),
 * and prints every record as one JSON line. It shares no code with the ledger's kafkajs readers.
 *
 *   java -cp '<kafka libs>/*:<classes>' TopicDump <bootstrap> read_committed|read_uncommitted <topic>...
 */
public final class TopicDump {
  private static String b64(byte[] bytes) {
    return bytes == null ? "null" : "\"" + Base64.getEncoder().encodeToString(bytes) + "\"";
  }

  public static void main(String[] args) {
    if (args.length < 3) {
      System.err.println("usage: TopicDump <bootstrap> <isolation> <topic>...");
      System.exit(2);
    }
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("isolation.level", args[1]);
    props.put("enable.auto.commit", "false");
    props.put("client.id", "fault-oracle");
    props.put("max.poll.records", "5000");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    StringBuilder out = new StringBuilder();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (int i = 2; i < args.length; i++) {
        for (PartitionInfo info : consumer.partitionsFor(args[i], Duration.ofSeconds(60))) partitions.add(new TopicPartition(args[i], info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
      long deadline = System.currentTimeMillis() + 180_000;
      for (;;) {
        boolean done = true;
        for (TopicPartition tp : partitions) {
          if (consumer.position(tp, Duration.ofSeconds(60)) < end.get(tp)) done = false;
        }
        if (done) break;
        if (System.currentTimeMillis() > deadline) {
          System.err.println("did not reach the end offsets " + end + " within 180 s");
          System.exit(3);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          if (r.offset() >= end.get(new TopicPartition(r.topic(), r.partition()))) continue;
          out.setLength(0);
          out.append("{\"topic\":\"").append(r.topic()).append("\",\"partition\":").append(r.partition())
              .append(",\"offset\":").append(r.offset()).append(",\"timestamp\":").append(r.timestamp())
              .append(",\"key\":").append(b64(r.key())).append(",\"value\":").append(b64(r.value())).append(",\"headers\":{");
          boolean first = true;
          for (Header h : r.headers()) {
            if (!first) out.append(',');
            first = false;
            out.append("\"").append(h.key().replace("\\", "\\\\").replace("\"", "\\\"")).append("\":").append(b64(h.value()));
          }
          out.append("}}");
          System.out.println(out);
        }
      }
    }
  }
}
