# bench-proxy.jq: medians and ratios of tools/bench-proxy.sh's runs (out=json,
# with the runs and settings as named arguments), and the table printed from
# that JSON (out=table, the JSON as input).

def median:
  map(select(. != null)) | sort
  | if length == 0 then null
    elif length % 2 == 1 then .[(length - 1) / 2]
    else (.[length / 2 - 1] + .[length / 2]) / 2 end;

def rep(n): if n <= 0 then "" else . * n end;
def lpad(n): tostring | length as $l | if $l >= n then . else (" " | rep(n - $l)) + . end;
def rpad(n): tostring | length as $l | if $l >= n then . else . + (" " | rep(n - $l)) end;

# A number with d decimals ("-" for none).
def fixed(d):
  if . == null then "-"
  elif d == 0 then (round | tostring)
  else (. < 0) as $neg
    | ((if $neg then -. else . end) * pow(10; d) | round | tostring) as $s
    | (("0" | rep(d + 1 - ($s | length))) + $s) as $t
    | (if $neg then "-" else "" end) + $t[:-d] + "." + $t[-d:]
  end;

def variant_order: ["direct", "cdpproxy", "cdpproxy-log", "before", "before-log", "nginx", "http-proxy"];

# The number each workload is judged by, and whether lower is better.
def headline: {
  "ping-pong": "p50_us", "pipelined": "answers_per_s", "large": "mb_per_s_down",
  "flood": "events_per_s", "chromium-ping-pong": "p50_us", "chromium-pipelined": "answers_per_s"
};

# Paced workloads: the proxy's CPU per message (an answer; a flood's event)
# per variant, median and range over the rounds, and its ratio to nginx's;
# syscalls and context switches per message from the one counted run.
def efficiency($measured; $sys):
  ($measured | map(select(.workload | startswith("paced-")))
   | group_by(.workload) | map({
      key: .[0].workload,
      value: (map(select(.variant != "direct")) | group_by(.variant) | map({
        key: .[0].variant,
        value: (map(if .ok and .proxy_cpu_ns != null then
                      .proxy_cpu_ns / 1e3 / (if .events > 0 then .events else .answers end)
                    else null end) as $us
          | {rounds: length, ok: all(.ok), ok_rounds: map(select(.ok)) | length,
             rate: (.[0].rate), achieved: (map(.rate_achieved) | median),
             cpu_us: ($us | median), cpu_us_min: ($us | map(select(. != null)) | min),
             cpu_us_max: ($us | map(select(. != null)) | max)})
      }) | from_entries)
    }) | from_entries)
  | with_entries(.key as $w | .value |= (
      (.nginx.cpu_us // null) as $n
      | with_entries(.key as $v | .value += (
          {to_nginx: (if .value.cpu_us and $n and $n > 0 then .value.cpu_us / $n else null end)}
          + ([$sys[] | select(.workload == $w and .variant == $v and .messages > 0)][0] // null
             | if . then {syscalls: (.syscalls / .messages),
                          context_switches: (.context_switches / .messages)} else {} end)))));

def summary:
  $ARGS.named as $a
  | ($a.runs | map(select(.round >= 1))) as $measured
  | ($measured | group_by(.workload) | map({
      key: .[0].workload,
      value: (group_by(.variant) | map({
        key: .[0].variant,
        value: {
          runs: length, ok: all(.ok),
          answers_per_s: map(.answers_per_s) | median,
          events_per_s: map(.events_per_s) | median,
          mb_per_s_down: map(.mb_per_s_down) | median,
          mb_per_s_up: map(.mb_per_s_up) | median,
          p50_us: map(.rtt_us.p50) | median,
          p99_us: map(.rtt_us.p99) | median,
          # paired with direct (ping-pong through a proxy): the added round
          # trip of adjacent pairs, and the difference of the pair's p99s
          added_p50_us: map(.added_us.p50) | median,
          added_p99_us: map(if .baseline_rtt_us then .rtt_us.p99 - .baseline_rtt_us.p99
                            else null end) | median,
          max_us: map(.rtt_us.max) | max,
          proxy_cpu_pct: map(.proxy_cpu_pct) | median
        }
      }) | from_entries)
    }) | from_entries) as $med
  | {
      tool: "bench-proxy", date: $a.date, mode: $a.mode,
      rounds: $a.rounds, seconds_per_run: $a.seconds, flood_events_per_request: ($a.flood | tonumber),
      host: {nproc: $a.nproc, kernel: $a.kernel,
             loadavg_start: ($a.load0 | tonumber), loadavg_end: ($a.load1 | tonumber)},
      variants: [variant_order[] as $v | select($a.runs | any(.variant == $v)) | $v],
      efficiency: efficiency($measured; $a.sys),
      medians: $med,
      ratios: ($med | with_entries(select(headline[.key] != null)
        | .key as $w | headline[$w] as $m | .value as $vs
        | .value = ($vs | with_entries(.value = (
            .value[$m] as $x
            | if $m == "p50_us" then
                (.value.added_p50_us) as $a | ($vs.nginx.added_p50_us // null) as $n
                | {added_us: $a,
                   added_to_nginx: (if $a and $n and $n > 0 then $a / $n else null end)}
              else
                {to_direct: (if $x and $vs.direct[$m] then $x / $vs.direct[$m] else null end),
                 to_nginx: (if $x and $vs.nginx[$m] then $x / $vs.nginx[$m] else null end)}
              end)))
      )),
      peak_rss_kib: ($a.rss | group_by(.phase)
        | map({key: .[0].phase, value: (map({key: .variant, value: .kib}) | from_entries)})
        | from_entries),
      runs: $a.runs
    };

def table:
  . as $s
  | $s.variants as $vs
  | def row(lbl; cells): (lbl | rpad(34)) + (cells | map(lpad(14)) | add);
    def per(w; f): [$vs[] as $v | ($s.medians[w][$v] // null) | if . == null then "-" else f end];
    def rel(w; f): [$vs[] as $v | ($s.medians[w][$v] // null)
                    | if . == null or $v == "direct" then "-" else f end];
    # m: p50 or p99; the added figures are from runs paired with direct.
    def lat(w; m; lbl):
      if $s.medians[w] then
        ($s.medians[w].nginx["added_" + m + "_us"] // null) as $n
        | row(lbl; per(w; .[m + "_us"] | fixed(1))),
          row("    added over direct, paired (us)"; rel(w; .["added_" + m + "_us"] | fixed(1))),
          row("    added / nginx's added"; rel(w; .["added_" + m + "_us"] as $a
            | if $a and $n and $n > 0 then $a / $n | fixed(2) + "x" else "-" end))
      else empty end;
    def rate(w; m; d; lbl):
      if $s.medians[w] then
        ($s.medians[w].direct[m]) as $dv | ($s.medians[w].nginx[m] // null) as $n
        | row(lbl; per(w; .[m] | fixed(d))),
          row("    / direct"; rel(w; if $dv then .[m] / $dv | fixed(2) + "x" else "-" end)),
          row("    / nginx"; per(w; if $n then .[m] / $n | fixed(2) + "x" else "-" end)),
          row("    proxy CPU (% of a core)"; per(w; .proxy_cpu_pct | fixed(0))),
          (if m == "answers_per_s" or m == "events_per_s" then
             row("    proxy CPU a message (us)"; per(w; if .proxy_cpu_pct and .[m] > 0
               then .proxy_cpu_pct / 100 / .[m] * 1e6 | fixed(2) else "-" end))
           else empty end)
      else empty end;
    def rss(phase; lbl):
      if $s.peak_rss_kib[phase] then
        row(lbl; [$vs[] as $v | $s.peak_rss_kib[phase][$v] | if . == null then "-" else . / 1024 | fixed(1) end])
      else empty end;
  "",
  "bench-proxy (\($s.mode)): \($s.rounds) round(s) of \($s.seconds_per_run) s per run, interleaved, medians; \($s.host.nproc) cores, load average \($s.host.loadavg_start) -> \($s.host.loadavg_end)",
  (if ($s.efficiency // {}) != {} then
     ($vs | map(select(. != "direct"))) as $ps
     | def erow(lbl; cells): (lbl | rpad(30)) + (cells | map(lpad(26)) | add);
       def wlabel: if startswith("paced-flood-") then "flood \(.[12:])/s 1 KiB events"
                  else "\(.[6:])/s 8 conns 150 B" end;
     "",
     "Efficiency: the proxy's own CPU a message (us; all its threads), paced, median [min-max]",
     "of \($s.rounds) interleaved rounds, x = ratio of medians to nginx's; then syscalls and",
     "context switches a message (perf, one run outside the rounds). Message: an answer",
     "(command up + result down), or a flood's event.",
     erow(""; $ps),
     ($s.efficiency | to_entries | sort_by(.key | [startswith("paced-flood"), (capture("(?<n>[0-9]+)k$").n | tonumber)]) | .[]
      | .key as $w | .value as $e
      | erow($w | wlabel; [$ps[] as $v | $e[$v] // null
          | if . == null or .cpu_us == null then "-"
            else "\(.cpu_us | fixed(2)) [\(.cpu_us_min | fixed(2))-\(.cpu_us_max | fixed(2))] \(.to_nginx | fixed(2))x" end]),
        (if ([$e[]? | .ok_rounds < .rounds] | any) then
           erow("    rounds that kept the rate"; [$ps[] as $v | $e[$v] // null
             | if . == null then "-" else "\(.ok_rounds)/\(.rounds)" end])
         else empty end),
        (if ([$e[]? | .syscalls] | any(. != null)) then
           erow("    syscalls / ctx switches"; [$ps[] as $v | $e[$v] // null
             | if . == null or .syscalls == null then "-"
               else "\(.syscalls | fixed(2)) / \(.context_switches | fixed(3))" end])
         else empty end)),
     ""
   else empty end),
  row(""; $vs),
  lat("ping-pong"; "p50"; "1 ping-pong 150 B, p50 (us)"),
  lat("ping-pong"; "p99"; "  ping-pong 150 B, p99 (us)"),
  rate("pipelined"; "answers_per_s"; 0; "2 pipelined 8x64 150 B (msg/s)"),
  rate("large"; "mb_per_s_down"; 1; "3 large 8 MiB results (MB/s)"),
  rate("flood"; "events_per_s"; 0; "4 event flood 1 KiB (events/s)"),
  lat("chromium-ping-pong"; "p50"; "5 chromium 1+1 ping-pong p50 (us)"),
  lat("chromium-ping-pong"; "p99"; "  chromium 1+1 ping-pong p99 (us)"),
  rate("chromium-pipelined"; "answers_per_s"; 0; "5 chromium 1+1 1x64 (ops/s)"),
  rss("echo"; "peak RSS, workloads 1-4 (MiB)"),
  rss("chromium"; "peak RSS, chromium (MiB)"),
  "(msg/s: answers, each one command up and one result down; nginx: its worker; JSON: \($ARGS.named.json // "-"))";

if $ARGS.named.out == "table" then table else summary end
