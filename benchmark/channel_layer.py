"""The Redis channel layer with a bounded connection pool that waits for a free connection.

channels_redis builds redis-py's plain asyncio pool, which *fails* an operation
(``MaxConnectionsError``) once ``max_connections`` (redis-py's default: 100) are in use. A
web process sends a group message after every move and adds or drops a group on every
websocket connect and disconnect, each on a connection of its own, and none of them waits
for the others: at 500 players a burst of them went past 100 and failed (29 to 151 errors a
run, a few moves' websocket answers lost with them). Here the pool is redis-py's
``BlockingConnectionPool``: at most ``max_connections`` per process and event loop
(``REDIS_MAX_CONNECTIONS``), and an operation past it waits up to ``timeout`` seconds
(``REDIS_POOL_TIMEOUT``) for one to come back. A Redis command takes well under a
millisecond, so the wait is short and nothing fails under a burst.
"""

from __future__ import annotations

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class RedisChannelLayer(BaseRedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
