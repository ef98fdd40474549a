/*
 * A Kafka-protocol broker for tests: librdkafka's mock cluster (Debian librdkafka-dev).
 * It is NOT Apache Kafka: it has no controller (CreateTopics fails; topics are created
 * on first produce or metadata request) and lacks some admin APIs. It prints its
 * bootstrap servers on one line, then serves until stdin closes or a signal arrives.
 * A line "fail <api key> <error code>" on stdin makes the next request of that API fail
 * with that error (librdkafka's error injection), for tests of what clients do then.
 *
 *   gcc -O2 -o kafka-mock-broker kafka-mock-broker.c -lrdkafka
 *   kafka-mock-broker [brokers]
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stopping = 0;
static void stop(int signal) { (void)signal; stopping = 1; }

int main(int argc, char **argv) {
  int brokers = argc > 1 ? atoi(argv[1]) : 1;
  char error[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  /* the handle only hosts the cluster: its warning about having no bootstrap servers is noise */
  rd_kafka_conf_set(conf, "log_level", "3", error, sizeof error);
  rd_kafka_t *handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error);
  if (!handle) {
    fprintf(stderr, "kafka-mock-broker: %s\n", error);
    return 1;
  }
  rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(handle, brokers > 0 ? brokers : 1);
  if (!cluster) {
    fprintf(stderr, "kafka-mock-broker: the mock cluster did not start\n");
    return 1;
  }
  printf("%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  fflush(stdout);
  /* no SA_RESTART: a signal must interrupt the read below */
  struct sigaction action = {.sa_handler = stop};
  sigaction(SIGINT, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  /* stdin closing means the parent went away, even if it could not send a signal */
  char line[128];
  size_t length = 0;
  char byte;
  while (!stopping && read(STDIN_FILENO, &byte, 1) > 0) {
    if (byte != '\n') {
      if (length < sizeof line - 1) line[length++] = byte;
      continue;
    }
    line[length] = '\0';
    length = 0;
    int api_key, error_code;
    if (sscanf(line, "fail %d %d", &api_key, &error_code) == 2) {
      rd_kafka_mock_push_request_errors(cluster, (int16_t)api_key, 1, (rd_kafka_resp_err_t)error_code);
      printf("failing the next request of API %d with error %d\n", api_key, error_code);
      fflush(stdout);
    }
  }
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(handle);
  return 0;
}
