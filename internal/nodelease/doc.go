// Package nodelease leases SCRU64 node IDs from etcd: the protocol, the
// keep-alive loop, the fail-closed deadline and the continuity record,
// written once against a small [Store] interface. Package etcdnode (its own
// module, over clientv3) is a thin layer over it, and the command-line tool
// leases through etcdnode. This comment is the one description of the
// protocol; the user documentation links here.
//
// # Keys
//
// Under a prefix P (default "/scru64/"), with node IDs written as seven
// zero-padded decimal digits so that byte order is numeric order:
//
//	P + "size"             the realm's node ID size, decimal, no lease
//	P + "node/0000042"     holder key of node ID 42, attached to the holder's lease
//	P + "last/0000042"     continuity record of node ID 42: a 12-digit SCRU64 ID, no lease
//
// # Mixed node ID sizes
//
// SCRU64 allows node ID sizes to differ if the leading bits of a longer node
// ID never equal a shorter one. This package does not try to allocate such
// prefix-free codes; it records the realm's size in P+"size" when the first
// node arrives and rejects a node asking for another size with a
// [*RealmError]. The acquire transaction compares the size key's value, so a
// realm cannot change size between a node's check and its take. Hot and
// cold nodes with different sizes need different prefixes and disjoint node
// ID ranges (Config.HasRange): for example size 4 with range 0..7 under one
// prefix, size 8 with range 128..255 under another. To change a realm's
// size, stop its nodes, wait until the ticks of their records have passed,
// and delete the prefix.
//
// # Acquiring
//
// [Acquire] records the realm's size (if it is the first), grants a lease,
// lists the holder keys, and tries the lowest free node ID with one
// transaction (Store.Acquire): create the holder key if it does not exist,
// attached to the lease, and read the continuity record (and the realm
// key's create revision) in the same revision. Two nodes racing for the
// same node ID cannot both see create_revision = 0 in a serializable
// transaction, so exactly one wins; the other tries the next free node ID
// it listed, and lists again when it runs out. A node ID is free again when
// its holder's lease ends (revoked by Close, or expired after a crash),
// which deletes the holder key. Before the first ID, Acquire renews the
// lease and writes the first bound: six requests in all when nobody races.
//
// An acquire transaction whose answer is lost may have applied. Its
// failure branch therefore also reads the holder key and the record: when
// the next try of the same node ID finds the holder key on the node's own
// lease, that earlier try took it, and the node takes it as its own, with
// the record read now, which nobody can have written since (writes are
// fenced on the holder key's lease). So a retry never leaves a holder key
// of the node's lease on a node ID it does not use.
//
// An Acquire that fails after it may have written the record puts the
// record back as its acquire transaction read it (a fenced write, below),
// then revokes the lease; both with a context of their own, bounded to 2 s,
// so that a cancelled Acquire still cleans up. Failed and cancelled
// Acquires therefore leave the record as they found it, and the next holder
// does not inherit a bound nobody minted under. If putting it back fails
// too, the error says so; the record is then at most a lead ahead.
//
// # Continuity: the high-water mark
//
// The record lets the next holder of a node ID start after every ID any
// earlier holder issued (scru64.NewNodeSpecWithNodePrev), after a crash as
// well as after Close, and even if its clock is behind. The scheme:
//
//  1. A node mints an ID only if its timestamp is at most bound, a tick it
//     has already written to the record as the ID (bound, node ID, counter
//     all ones): the largest ID the node could mint in that tick. The check
//     is part of every Generate.
//  2. Every write of the record is fenced (Store.WriteRecord): it applies
//     only if the holder key is attached to the node's lease, the realm key
//     has the create revision the node took the node ID under, and the
//     record's mod_revision is the one of the node's last write, all in one
//     transaction with the write. A write sent twice, or delivered after a
//     newer one (a middlebox, a load balancer retrying, bytes flushed just
//     before a connection's FIN), finds another mod_revision and fails, so
//     no stale write can move the record down or sideways. bound grows only
//     from writes known to have applied, and every write but Close's is
//     above the bound the node mints under. So while the node holds the
//     node ID, the record is never below an ID it issued, and once the
//     node ID has passed to another lease no write of the old holder can
//     apply.
//  3. The next holder reads the record in its acquire transaction, after
//     the old holder's key is gone and so after its last successful write,
//     and starts its generator after the record.
//
// Hence, after a crash, every ID the old holder issued is at most (bound,
// node ID, all ones) <= the record < every ID of the next holder.
//
// A write whose answer is lost may or may not have applied. The node keeps
// its value as pending; its next write, fenced on the last revision it
// knows, then fails if the pending one applied, and the failure branch of
// that transaction reads the record: if it holds a pending value, that was
// the node's own write, and the node takes its revision and writes again.
// A write counts as pending from before it is sent, because it may reach
// the store twice without the node sending it twice: a client that sends
// a request again after a timeout, a proxy that retries, a connection's
// bytes delivered late. If the second send fails its compare and finds the
// very value it carries, the first applied, and the write is done. So a
// store that is slow to answer (a member defragmenting, a congested link)
// makes the node wait or stall, never take its own write for lost data.
// Pending bounds are kept as the range of their values (every bound sent
// since the last known write is at least that write's, and a high-water
// ID of the node ID), so that hours of failing writes cost no memory: a
// record in that range, of that form, is the node's own, since nobody
// else writes the record while the holder key is on the node's lease, and
// a record that etcd took back is below the range. Anything else it reads
// ends the node ([*LostError]): the holder key gone or another lease's
// (lost), or the realm key or the record changed by someone else (data
// loss, below).
//
// Close first stops minting, then lowers the record to the exact last ID
// (the generator's NodeSpec) with a fenced write, after the bound loop has
// ended, so that after a clean Close the next holder starts right after
// it; why no ID can slip past that read is explained at [Node.Close]. A
// node that minted nothing puts back what it found (deleting a record
// that was absent).
//
// # Raising the bound
//
// A background loop keeps bound at least boundLeadTicks/2 ahead of what
// the node may mint next, writing bound = that + boundLeadTicks (20 ticks,
// 5.12 s), that is about every 2.5 seconds. What it may mint next is the
// larger of the last ID's tick and the clock's; but the clock counts only
// as far as the node's pace: the wall clock at Acquire plus the monotonic
// time since. A wall clock that jumps ahead (a day, for a second and a
// half) while nothing is minted therefore does not drag the record with
// it; the record stays within the lead of the true time. A wall clock that
// really moved ahead is believed once IDs are minted at it: such an ID is
// past bound, so Generate drops it and waits for the loop, which raises
// bound past the generator's new last ID at once (one write), and the
// pace follows. Counter overflows that run IDs ahead of the clock are
// covered the same way. No ID is ever returned above a bound whose write
// is known to have applied.
//
// # When writes fail while the lease holds
//
// etcd can refuse writes while it renews leases: when its space quota is
// exceeded it raises the NOSPACE alarm and refuses every write, and
// keep-alives, which write nothing, go on. A proxy can refuse transactions
// alone, too. The node then cannot raise its bound, and by the rule above
// mints no ID past it; it must say so rather than wait in silence:
//
//   - The bound loop writes in rounds of up to three attempts ("no
//     leader" is none: see Requests, timeouts and failover). When a
//     round fails, the node is stalled: it publishes a [*StallError] (since when,
//     how many attempts, the bound, and the last write's error with etcd's
//     answer in it), which [Node.Stalled] returns while the node lives.
//   - The node goes on minting up to the bound (it was written, so the
//     proofs hold), then Generate returns the *StallError at once instead
//     of waiting for a write: a caller hears it at most a lead (5.12 s)
//     after the first failure, and flushes or reports what it minted.
//   - Failed rounds are repeated after a wait that starts at 256 ms and
//     doubles up to 2 s, and each writes whether or not the bound needs
//     raising, so that the first write that applies clears the stall
//     (Stalled returns nil, Generate mints again), within about 2 s of
//     etcd accepting writes again. A pending write of a failed round is
//     handled as above.
//
// Generate waits for a write only while none has failed: when IDs have
// run past the bound (a burst, a clock stepped ahead), for at most three
// request timeouts (below), the time of a round's first two requests, and
// returns a *StallError if the bound has not been raised by then. No
// generate call blocks on etcd longer than that, or past the lease's
// deadline.
//
// # Requests, timeouts and failover
//
// A request is given at most the request timeout, the TTL's safety margin
// (TTL/10 + 250 ms, below) up to 2 s: a member of the cluster that hangs,
// has no leader or is cut off from its peers costs one attempt, not the
// lease. Each step of Acquire and Close sends its request again after a
// failure, up to five attempts while the caller's context lasts, and each
// round of the bound loop up to three; each next attempt is given twice
// the time of the one before, so that a cluster that is slow rather than
// broken still answers. A failure the Store calls transient ([Transient]:
// etcd's "no leader", which every member answers at once while the cluster
// elects a leader) is no attempt: the request is sent again after a wait
// from 50 ms doubling to the request timeout, for as long as the attempts
// would last (the five of a step of Acquire or Close, the three of a round
// of the bound loop), so that an election does not stall a node with
// time left before its bound. A renewal is hedged instead: when a keep-alive is not
// answered within the request timeout another goes out, and another after
// twice as long, while the first ones stay in flight until the deadline;
// the first answer counts, from its own request's sending. A renewal
// whose keep-alives all fail is tried again after 50 ms, the wait doubling
// up to TTL/4. With clientv3, whose balancer hands requests to the
// members round robin, each next request goes to another member. (clientv3
// itself sends a read or a lease request again only after an answer that
// says "unavailable", never a transaction or a request that hangs, and
// its KeepAliveOnce stops at "no leader"; the etcdnode Store asks for a
// leader on every request, so that a member without one says so at once
// instead of holding the request until etcd's own timeout.) Repeating a
// request is safe for each step: the transactions compare before they
// write (an acquire transaction or a record write that may have applied is
// recognised, above), keep-alives and revocations are idempotent, and a
// grant repeated leaves at most an unused lease that expires.
//
// etcd's leader renews leases from its own memory, without the others: a
// leader cut off from them answers keep-alives from what it knew at the
// cut until it steps down, an election timeout later, and so says "no
// such lease" of a lease granted since. Such an answer carries a revision
// below one the node has seen in a KV answer (revisions only grow), and is
// taken as a failed request, sent again, rather than believed.
//
// # TTLs as granted
//
// The node counts on the TTL etcd granted, which etcd may raise above the
// one asked (to its minimum, 1.5 election timeouts): keep-alives go out
// every quarter of it and the deadline follows it. A TTL etcd cannot grant
// (below one second, or past its largest, 9,000,000,000 s, which would also
// overflow the deadline's arithmetic) is refused with a [*DataError]: only
// a broken proxy or a man in the middle answers one. A keep-alive's answer
// counts for at most the TTL granted, which is what etcd renews a lease to,
// and one past etcd's largest is a failed renewal.
//
// # Data from the server
//
// Nothing etcd answers is trusted to have the shape this package wrote or
// asked for. A listing is checked key by key (in the range asked for,
// after the key before it, of the holder keys' form) and by count (at
// most its limit), so that a node never takes a node ID outside its range
// and every page starts past the last; a realm key that holds no node ID
// size, a record that is no ID of its node ID, and a transaction answered
// in another shape are [*DataError] and [*RecordError] values matching
// [ErrBadData], which name the key and the value, quoted. A Store bounds
// the bytes of every answer it reads.
//
// # A man in the middle
//
// Nothing in an answer tells a forged one from etcd's. One that keeps
// answering a node's keep-alives while the lease has in fact expired makes
// the node mint on, even while another node holds the node ID: but only up
// to its bound, and its next write of the record, fenced on its lease,
// fails and ends it. That write comes within half the lead (2.56 s) of
// expiry unless forged too, and the bound is at most a lead (5.12 s) past
// the IDs minted; the next holder starts after the record, so no ID
// repeats, and the overlap in time lasts at most the lead. A man in the
// middle that also forges the record's writes and the acquire
// transaction's reads is etcd as far as the node can tell, and can make it
// repeat IDs: TLS to etcd (with the server's certificate checked) is the
// answer where the network between nodes and etcd is not trusted.
//
// # When the record is ahead of the next holder's clock
//
// The next holder's generator continues after the record. A record ahead of
// its clock by up to scru64.DefaultRollbackAllowance (10 s) is a small
// rollback: minting goes on at once, in the record's tick, without waiting.
// After a clean Close the record is the last ID, so the next holder does not
// wait unless its clock is 10 s behind the old holder's; after a crash the
// record is at most boundLeadTicks + one tick (about 5.4 s) ahead of the
// old holder's last ID or pace, so the next holder does not wait unless
// its clock is more than about 4.6 s behind. Both margins shrink by however
// far counter overflows had run the old holder's IDs ahead of its clock
// (up to the allowance, under a sustained burst). Beyond that, Generate
// returns a [*RollbackError] (matching scru64.ErrClockRollback) that says
// how long until minting resumes, and GenerateOrSleep waits for the clock
// if that is at most [MaxSleep] (a minute) and returns the error at once
// otherwise: the stream never goes back, and nobody waits hours in
// silence. [Node.ClockWait] tells a caller the wait before it mints.
//
// # Failing closed
//
// A node stops minting before its lease can expire on the server. etcd
// renews a lease to TTL from the moment it handles the keep-alive request,
// which is after the node sent it, so if the node read its monotonic clock
// at S just before sending a keep-alive that the server answered with TTL,
// the lease lives at least until S + TTL of the server's time (the TTL
// granted, see "TTLs as granted"). The node mints only while its monotonic
// clock reads below
//
//	deadline = S + TTL - margin,  margin = TTL/10 + 250 ms
//
// TTL/10 covers a client clock running up to 10% slower than the server's
// (NTP keeps clocks within 0.05%), and 250 ms covers scheduling: the time
// between the clock read that a mint checks and the moment the ID is
// returned. Keep-alives go out every TTL/4, so at least two in a row may
// fail before the deadline (and a failed one is sent again sooner, see
// "Requests, timeouts and failover"). When the deadline passes, a
// keep-alive finds the lease gone, or a fenced write fails, the node is
// lost for good: every generate call returns the [*LostError] (which names
// the last failed renewal's error) and Done is closed.
//
// The check on the hot path is one atomic load of an immutable limits value
// (deadline and bound) after the mint, compared with the monotonic reading
// taken together with the timestamp (clock.MillisMono): no second clock
// read, no call into etcd, and no timer that must fire on time.
//
// Uniqueness does not depend on the deadline: by the high-water argument an
// old holder that ignored its deadline would still mint only IDs below its
// successor's. The deadline adds that two processes do not mint under one
// node ID at the same time.
//
// # What fencing cannot catch: etcd losing data
//
// All of the above assumes that etcd keeps what it acknowledged. A server
// restarted with an empty data directory, or restored from an old backup
// (or snapshot), forgets holder keys, leases and records, or takes them
// back to older values; a new node may then take a node ID that a live
// node still mints under, fresh or after an old record, and mint IDs the
// live node minted or will mint. Nothing a node does can stop that between
// the loss and the node's next request to etcd. At that request the node
// notices what it can and stops with a [*LostError] matching [ErrDataLoss]
// (and [ErrLeaseLost]):
//
//   - the revision of a KV answer is below that of an answer received
//     before the request was sent (KV requests are linearizable, so only a
//     rewind does that);
//   - the cluster ID of an answer differs from the one Acquire saw;
//   - a fenced write fails and the record is absent or below the node's
//     own last write, or the realm key was deleted or made anew. Where its
//     holder key is still its own (a restored backup), the node first
//     writes its last bound back over the rewound record, so that the node
//     ID's next holder starts after its IDs.
//
// A server that lost its data also forgets the node's lease, so the next
// keep-alive (at most TTL/4 later) ends the node with [ErrLeaseLost] if no
// write came first, once the server's revision has passed what the node
// has seen; below that, its "no such lease" is asked again (above), and
// the node's next write, due within about 2.5 s, or its deadline ends it. The cluster ID alone is not enough: etcd derives it
// from the member names and peer URLs, so a member restarted on an empty
// data directory keeps it. After such a loss, every node of the realm
// should be restarted and the IDs minted around the loss checked.
//
// # Stores other than etcd
//
// Module scru64/pgnode runs this protocol over PostgreSQL, with a Store that
// gives a database what the proofs above take from etcd, rather than a
// protocol of its own. Its schema (scru64/pgnode/schema.sql) holds three
// tables, and each Store method is one call of one of its functions: one
// statement, a transaction of its own.
//
//   - Revisions. One row holds the store's revision. Every function that
//     writes first increments it, which locks the row until its
//     transaction commits: writes are serialized, each at a revision of
//     its own in commit order, and a statement after the lock sees every
//     write committed before it. Keys carry their create and mod
//     revisions as etcd's do, so each transaction above (create if
//     absent, the fenced write and its failure branch) is the same
//     transaction, and the fencing argument holds word for word.
//   - Leases. A lease row has a TTL and an expiry, set to the server's
//     clock_timestamp() plus the TTL when the statement that grants or
//     renews it runs: after the node sent it, as with etcd, so that the
//     lease outlives S + TTL and the deadline and margins above apply. The
//     clock is the server's wall clock: NTP's slewing is well within the
//     margin, but a server clock stepped forward ends leases early, which
//     can let two nodes mint under one node ID at once (never the same
//     IDs: the high-water argument does not use the deadline). A lease
//     also lives at least a TTL from the server's start, as etcd gives
//     every lease a new TTL when a leader starts, so that nodes can renew
//     after a restart or a restore. An ended lease is absent to every
//     function, and the next write deletes it with its keys.
//   - Keys are compared and ordered byte by byte (COLLATE "C"). Text cannot
//     hold a NUL, so the listing's bounds that end in one (the next string
//     after a key) become that key, included or not. The functions answer
//     keys and values cut to 256 characters, longer than any a node
//     writes: what bounds the bytes of an answer. A realm is the prefix
//     R + "/", and R may not hold "/node/" and a digit, so that no key of
//     another realm falls in R's listing of holder keys.
//   - Headers. ClusterID is the cluster's system identifier (the one
//     recorded at setup where the functions' owner may not read it), which
//     a physical backup or a replica shares and a new cluster does not;
//     Header.Timeline is its WAL timeline, which a promoted replica or a
//     recovery to a point in time advances. Every answer carries both.
//
// What fencing cannot catch is then: a restore from an older backup (the
// revision, or the node's record, goes back; the timeline too unless the
// copy was made of a stopped server), a failover to a replica that lacks
// the last commits (the timeline changes, so that the first answer from
// the new primary stops every node, keep-alives included), the database
// copied into another cluster (the system identifier), and anyone writing
// the tables. The functions commit durably whatever synchronous_commit
// the caller's role has, so that an answer is never sent for a write a
// crash could take back.
package nodelease
