#!/usr/bin/env python3
"""Per-hop times of sampled records, from a bench run built with docs/hop-timing.patch.

Usage: python3 docs/hop-timing.py RUN.log [RUN.log ...]

RUN.log is the bench's output (stdout and stderr) and RUN/ the --results-dir beside it: each mode's window starts
at the StartTime of RUN/<MODE>-ack.hlog and lasts --duration-s (20 s here; change WINDOW_MS otherwise). The patch
makes a source leader log one line per sampled acks=all record once the HW passes it:

  HOP <partition> <offset> hw <us> s<i> <us> c<i> <us> ... ms <us> m <us> at <epoch ms>

all in microseconds after the leader's append (-1: did not happen before the HW passed): hw the HW passing the
record; s<i> a fetch of replica position i reading the record; c<i> that replica's LEO past the record credited
(its next fetch); ms a sync mirror fetch reading the record; m the mirror's reported ISR LEO passing it.

The patch also makes each fetcher log one line per partition it appended records for:

  FHOP r <replica id> <partition> <last offset appended> recv <ns> handle <ns> appended <ns> sent <ns>

in System.nanoTime (the bench's brokers share one JVM, so one clock): recv when the response reached the
fetcher's transport, appended when the fetcher had appended it. Joined with the leader's HOP line (its absolute
append time `a` and replica ids `r<i>`), each follower's turnaround splits into: the leader's read -> the
response received by the follower; received -> appended; appended -> the follower's next fetch credited (the
request out, the leader's network thread, the credit). `sent` is taken after the transport's send returns and
is not used. The mirror fetcher's lines have replica id -1.

The patch also makes each destination's sync reporter log, per partition of a report, when the report left and the
lowest ISR LEO it carried:

  RHOP <partition> <lowest ISR LEO> sent <ns>

so a SYNC record's way through the destination splits too: the source's read by the mirror fetch -> received by
the destination leader -> appended there -> a report carrying an ISR LEO past the record sent (the destination
followers' fetches, their credit, the reporter's wake-up) -> credited at the source. And each destination leader
logs, for one mirrored record at a time per partition, its mirror append (`a`) and its last follower's credit:

  DHOP <partition> <offset> a <ns> last <ns>

which splits the destination's part at that credit.
"""
import bisect
import collections
import re
import sys

WINDOW_MS = 20_000


def percentile(values, p):
    if not values:
        return float('nan')
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100.0 * len(values)))]


def window_start_ms(results_dir, mode):
    with open(f'{results_dir}/{mode}-ack.hlog') as hlog:
        for line in hlog:
            m = re.search(r'#\[StartTime: ([0-9.]+)', line)
            if m:
                return float(m.group(1)) * 1000
    raise SystemExit(f'no StartTime in {results_dir}/{mode}-ack.hlog')


def read_lines(log):
    """The leader's HOP lines (dicts), the fetchers' FHOP lines by (replica id, partition), by receive time, the
    reporters' RHOP lines by partition, by send time, and the destination leaders' DHOP lines by partition, by
    append time."""
    hops = []
    fetched = collections.defaultdict(list)
    reports = collections.defaultdict(list)
    credits = collections.defaultdict(list)
    with open(log, errors='replace') as lines:
        for line in lines:
            i = line.find('DHOP ')
            if i >= 0:
                f = line[i:].split()
                credits[f[1]].append((int(f[4]), int(f[2]), int(f[6])))
                continue
            i = line.find('RHOP ')
            if i >= 0:
                f = line[i:].split()
                reports[f[1]].append((int(f[4]), int(f[2])))
                continue
            i = line.find('FHOP ')
            if i >= 0:
                f = line[i:].split()
                fetched[(int(f[2]), f[3])].append((int(f[6]), int(f[4]), int(f[10])))
                continue
            i = line.find('HOP ')
            if i >= 0:
                f = line[i:].split()
                d = {k: int(v) for k, v in zip(f[3::2], f[4::2])}
                d['partition'] = f[1]
                d['offset'] = int(f[2])
                hops.append(d)
    for entries in list(fetched.values()) + list(reports.values()) + list(credits.values()):
        entries.sort()
    return hops, fetched, reports, credits


def rows_in_window(hops, start, end):
    rows = []
    for d in hops:
        if not start <= d['at'] <= end:
            continue
        credits = sorted(d[f'c{k}'] for k in range(4) if d[f'c{k}'] >= 0)
        sends = [d[f's{k}'] for k in range(4) if d[f's{k}'] >= 0]
        turnarounds = [d[f'c{k}'] - d[f's{k}'] for k in range(4) if d[f's{k}'] >= 0 and d[f'c{k}'] >= 0]
        rows.append({
            'hw': d['hw'],
            'first_credit': credits[0] if credits else -1,
            'last_credit': credits[-1] if credits else -1,
            'last_send': max(sends) if sends else -1,
            'turnaround': max(turnarounds) if turnarounds else -1,
            'mirror_send': d['ms'],
            'mirror_report': d['m'],
        })
    return rows


def follower_splits(hops, fetched, start, end):
    """Per (record, follower): leader read -> received, received -> appended, appended -> credited, in us."""
    splits = collections.defaultdict(list)
    slower = collections.defaultdict(list)
    for d in hops:
        if not start <= d['at'] <= end or 'a' not in d:
            continue
        appended_at = d['a']
        per_follower = []
        for k in range(4):
            if d[f's{k}'] < 0 or d[f'c{k}'] < 0:
                continue
            entries = fetched.get((d[f'r{k}'], d['partition']), [])
            j = bisect.bisect_left(entries, (appended_at,))
            while j < len(entries) and entries[j][1] < d['offset']:
                j += 1
            if j == len(entries):
                continue
            received, _, appended = entries[j]
            read = appended_at + d[f's{k}'] * 1000
            credited = appended_at + d[f'c{k}'] * 1000
            per_follower.append({'read -> received': (received - read) / 1000,
                                 'received -> appended': (appended - received) / 1000,
                                 'appended -> credited': (credited - appended) / 1000,
                                 'credited': d[f'c{k}']})
        for split in per_follower:
            for key, value in split.items():
                splits[key].append(value)
        if per_follower:
            for key, value in max(per_follower, key=lambda p: p['credited']).items():
                slower[key].append(value)
    return splits, slower


def mirror_splits(hops, fetched, reports, credits, start, end):
    """Per SYNC record: the source's read by the mirror fetch -> the response received by the destination leader's
    mirror fetcher -> appended there -> the destination's report carrying an ISR LEO past the record sent (the
    destination followers' fetches, their credit and the reporter's wake-up) -> the report credited at the source,
    in us; with the destination leader's DHOP line, the third splits at its last follower's credit. The mirror
    fetcher's FHOP lines have replica id -1."""
    splits = collections.defaultdict(list)
    for d in hops:
        if not start <= d['at'] <= end or d['ms'] < 0 or d['m'] < 0:
            continue
        entries = fetched.get((-1, d['partition']), [])
        j = bisect.bisect_left(entries, (d['a'],))
        while j < len(entries) and entries[j][1] < d['offset']:
            j += 1
        sent = reports.get(d['partition'], [])
        if j == len(entries) or not sent:
            continue
        received, _, appended = entries[j]
        k = bisect.bisect_left(sent, (appended,))
        while k < len(sent) and sent[k][1] <= d['offset']:
            k += 1
        if k == len(sent):
            continue
        read = d['a'] + d['ms'] * 1000
        credited = d['a'] + d['m'] * 1000
        splits['source read -> mirror received'].append((received - read) / 1000)
        splits['mirror received -> appended'].append((appended - received) / 1000)
        splits['appended -> report sent'].append((sent[k][0] - appended) / 1000)
        splits['report sent -> credited'].append((credited - sent[k][0]) / 1000)
        sampled = credits.get(d['partition'], [])
        c = bisect.bisect_left(sampled, (appended - 1_000_000,))
        while c < len(sampled) and sampled[c][1] < d['offset']:
            c += 1
        # The same mirror append: the destination leader timed it just before its fetcher logged it appended.
        if c < len(sampled) and abs(sampled[c][0] - appended) < 1_000_000 and sampled[c][2] <= sent[k][0]:
            splits['appended -> destination followers credited'].append((sampled[c][2] - appended) / 1000)
            splits['followers credited -> report sent'].append((sent[k][0] - sampled[c][2]) / 1000)
    return splits


HOPS = (
    ('hw', 'append -> HW'),
    ('first_credit', 'append -> first follower credited'),
    ('last_credit', 'append -> last follower credited'),
    ('last_send', 'append -> last follower read'),
    ('turnaround', 'follower read -> credited (max)'),
    ('mirror_send', 'append -> mirror read'),
    ('mirror_report', 'append -> mirror report'),
)

for log in sys.argv[1:]:
    results_dir = log[:-len('.log')]
    hops, fetched, reports, credits = read_lines(log)
    for mode in ('ASYNC', 'SYNC'):
        start = window_start_ms(results_dir, mode)
        rows = rows_in_window(hops, start, start + WINDOW_MS)
        print(f'{log} {mode} sampled={len(rows)}')
        for key, name in HOPS:
            values = [r[key] for r in rows if r[key] >= 0]
            print(f'  {name:36s} n={len(values):5d} p50={percentile(values, 50):7.0f} '
                  f'p90={percentile(values, 90):7.0f} p99={percentile(values, 99):7.0f} us')
        if fetched:
            splits, slower = follower_splits(hops, fetched, start, start + WINDOW_MS)
            print(f'  the slower follower of each record ({len(slower["credited"])} records):')
            for name in ('read -> received', 'received -> appended', 'appended -> credited'):
                values = slower[name]
                print(f'    {name:34s} p50={percentile(values, 50):7.0f} p90={percentile(values, 90):7.0f} '
                      f'p99={percentile(values, 99):7.0f} us')
        if reports:
            splits = mirror_splits(hops, fetched, reports, credits, start, start + WINDOW_MS)
            names = ('source read -> mirror received', 'mirror received -> appended', 'appended -> report sent',
                     'report sent -> credited')
            if credits:
                names += ('appended -> destination followers credited', 'followers credited -> report sent')
            if not splits[names[0]]:
                continue
            print(f'  the destination path of each record ({len(splits[names[0]])} records):')
            for name in names:
                values = splits[name]
                print(f'    {name:44s} n={len(values):5d} p50={percentile(values, 50):7.0f} '
                      f'p90={percentile(values, 90):7.0f} p99={percentile(values, 99):7.0f} us')
