/*
 * A stand-in for socat with only the address pairs the reference sandbox runtime (srt) uses on
 * Linux, for bench/sandbox-vs-srt.ts on machines without socat (the bench compiles it with cc into
 * its scratch folder). Like `socat A,fork B` it accepts on A and forks a child per connection that
 * pipes it to a new connection to B. Addresses (options after the first comma are ignored):
 *   listen:  UNIX-LISTEN:<path>  TCP6-LISTEN:<port> (IPv4 mapped in)  TCP4-LISTEN:<port>
 *   connect: UNIX-CONNECT:<path>  TCP:<host>:<port>
 */
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static char *value(const char *address, const char *kind) {
  size_t n = strlen(kind);
  if (strncmp(address, kind, n) != 0 || address[n] != ':') return NULL;
  char *copy = strdup(address + n + 1);
  char *comma = strchr(copy, ',');
  if (comma) *comma = '\0';
  return copy;
}

static int listen_on(const char *address) {
  char *v;
  int fd = -1, one = 1, zero = 0;
  if ((v = value(address, "UNIX-LISTEN"))) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, v, sizeof a.sun_path - 1);
    unlink(v);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  } else if ((v = value(address, "TCP6-LISTEN"))) {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(atoi(v)), .sin6_addr = in6addr_any};
    fd = socket(AF_INET6, SOCK_STREAM, 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  } else if ((v = value(address, "TCP4-LISTEN"))) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(v)), .sin_addr.s_addr = htonl(INADDR_ANY)};
    fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) return -1;
  } else {
    return -1;
  }
  return listen(fd, 4096) == 0 ? fd : -1;
}

static int connect_to(const char *address) {
  char *v;
  if ((v = value(address, "UNIX-CONNECT"))) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, v, sizeof a.sun_path - 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    return connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? fd : -1;
  }
  if ((v = value(address, "TCP"))) {
    char *colon = strrchr(v, ':');
    if (!colon) return -1;
    *colon = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *found, *each;
    if (getaddrinfo(v, colon + 1, &hints, &found) != 0) return -1;
    for (each = found; each; each = each->ai_next) {
      int fd = socket(each->ai_family, SOCK_STREAM, 0);
      if (connect(fd, each->ai_addr, each->ai_addrlen) == 0) return fd;
      close(fd);
    }
  }
  return -1;
}

static void relay(int a, int b) {
  struct pollfd fds[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
  char buffer[65536];
  int open = 2;
  while (open > 0 && poll(fds, 2, -1) > 0) {
    for (int i = 0; i < 2; i++) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      int other = fds[1 - i].fd;
      if (n <= 0) {
        shutdown(other, SHUT_WR);
        fds[i].fd = -1;
        open--;
        continue;
      }
      for (ssize_t sent = 0; sent < n;) {
        ssize_t w = write(other, buffer + sent, n - sent);
        if (w <= 0) return;
        sent += w;
      }
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: socat-standin LISTEN-ADDRESS CONNECT-ADDRESS\n");
    return 2;
  }
  signal(SIGCHLD, SIG_IGN);
  int server = listen_on(argv[1]);
  if (server < 0) {
    perror("socat-standin: listen");
    return 1;
  }
  for (;;) {
    int client = accept(server, NULL, NULL);
    if (client < 0) continue;
    if (fork() == 0) {
      close(server);
      int upstream = connect_to(argv[2]);
      if (upstream >= 0) relay(client, upstream);
      _exit(0);
    }
    close(client);
  }
}
