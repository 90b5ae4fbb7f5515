/*
 * The floor under the gateway's event/ack round trips on this machine: the same exchange (a 300-byte
 * event out, a 120-byte ack back) between two processes over loopback TCP with TCP_NODELAY, in C,
 * with nothing else: no runtime, no WebSocket framing, no JSON, no engine. `bench/gateway.ts`
 * compiles and runs it when a C compiler is at hand (`cc -O2 -o floor gateway-floor.c`).
 *
 *   floor [-e] [seconds]   blocking reads (default), or epoll_wait before each read (-e), as an event
 *                          loop such as libuv does
 *
 * Prints `<mode> <round trips per second>`.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EVENT_BYTES 300
#define ACK_BYTES 120

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* Reads exactly n bytes; with an epoll descriptor, waits for readiness first as an event loop does. */
static int read_exactly(int fd, char *buf, int n, int ep) {
  int got = 0;
  while (got < n) {
    if (ep >= 0) {
      struct epoll_event ready;
      if (epoll_wait(ep, &ready, 1, -1) < 0) return -1;
    }
    ssize_t r = read(fd, buf + got, n - got);
    if (r <= 0) return -1;
    got += r;
  }
  return 0;
}

static int epoll_for(int fd, int wanted) {
  if (!wanted) return -1;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  return ep;
}

int main(int argc, char **argv) {
  int use_epoll = 0, seconds = 3, one = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-e")) use_epoll = 1;
    else seconds = atoi(argv[i]);
  }
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 1) ||
      getsockname(listener, (struct sockaddr *)&address, &length)) {
    perror("listen");
    return 1;
  }
  char event[EVENT_BYTES], ack[ACK_BYTES];
  memset(event, 'e', sizeof event);
  memset(ack, 'a', sizeof ack);

  pid_t client = fork();
  if (client == 0) {
    /* The strategy: read an event, answer with an ack, until the server hangs up. */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(s, (struct sockaddr *)&address, sizeof address)) _exit(1);
    int ep = epoll_for(s, use_epoll);
    char buf[EVENT_BYTES];
    while (read_exactly(s, buf, EVENT_BYTES, ep) == 0)
      if (write(s, ack, ACK_BYTES) != ACK_BYTES) break;
    _exit(0);
  }

  /* The gateway: send an event, wait for its ack, for `seconds`. */
  int s = accept(listener, NULL, NULL);
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int ep = epoll_for(s, use_epoll);
  char buf[ACK_BYTES];
  long trips = 0;
  double start = now(), end = start + seconds;
  for (;;) {
    if (write(s, event, EVENT_BYTES) != EVENT_BYTES || read_exactly(s, buf, ACK_BYTES, ep)) break;
    trips++;
    if ((trips & 255) == 0 && now() >= end) break;
  }
  double elapsed = now() - start;
  close(s);
  waitpid(client, NULL, 0);
  printf("%s %.0f\n", use_epoll ? "epoll" : "blocking", trips / elapsed);
  return 0;
}
