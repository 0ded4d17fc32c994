// Writes N nights of IMB-MPI1's default benchmarks on 2 processes as Intel's IMB 2021 prints them
// (every MPI-1 benchmark of the default list, 0 bytes and 1 byte to 4 MiB), one file a night from
// 1 January 2021, with 3 % lognormal noise (a fixed seed) and two known changes:
//   Allreduce 15 % slower from night SLOWER on, the kernel release changed that night;
//   PingPong 10 % faster from night FASTER on, nothing recorded changed with it.
//   node nightly_files.mjs DIR N SLOWER FASTER
import {mkdirSync, writeFileSync} from 'node:fs';

const [dir, nights, slower, faster] = [process.argv[2], ...process.argv.slice(3).map(Number)];
mkdirSync(dir, {recursive: true});

let seed = 20210101n;
function uniform() {  // SplitMix64: the same nights on every machine
  seed = (seed + 0x9E3779B97F4A7C15n) & 0xFFFFFFFFFFFFFFFFn;
  let z = seed;
  z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & 0xFFFFFFFFFFFFFFFFn;
  z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & 0xFFFFFFFFFFFFFFFFn;
  return Number((z ^ (z >> 31n)) >> 11n) / 2 ** 53;
}
function noise() {  // lognormal, sigma 3 %
  const u = Math.max(uniform(), 1e-12), v = uniform();
  return Math.exp(0.03 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
}

const lengths = [0, ...Array.from({length: 23}, (_, i) => 2 ** i)];
// [name, kind, latency in us, bandwidth in bytes per us]: a time of latency + bytes / bandwidth.
const benchmarks = [
  ['PingPong', 'pingpong', 0.4, 9000], ['PingPing', 'pingpong', 0.5, 7000],
  ['Sendrecv', 'collective', 0.6, 12000], ['Exchange', 'collective', 0.9, 9000],
  ['Allreduce', 'collective', 0.8, 3000], ['Reduce', 'collective', 0.7, 3500],
  ['Reduce_scatter', 'collective', 1.0, 3000], ['Reduce_scatter_block', 'collective', 1.0, 3000],
  ['Allgather', 'collective', 0.8, 6000], ['Allgatherv', 'collective', 0.9, 6000],
  ['Gather', 'collective', 0.6, 7000], ['Gatherv', 'collective', 0.7, 7000],
  ['Scatter', 'collective', 0.6, 7000], ['Scatterv', 'collective', 0.7, 7000],
  ['Alltoall', 'collective', 0.9, 5000], ['Alltoallv', 'collective', 1.0, 5000],
  ['Bcast', 'collective', 0.6, 8000], ['Barrier', 'barrier', 0.9, 0],
];
const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const f2 = v => v.toFixed(2).padStart(12);

for (let night = 1; night <= nights; night++) {
  const d = new Date(Date.UTC(2021, 0, night, 2, 0, 0));
  const date = `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} 02:00:00 ${d.getUTCFullYear()}`;
  let text = `#------------------------------------------------------------
#    Intel(R) MPI Benchmarks 2021.3, MPI-1 part
#------------------------------------------------------------
# Date                  : ${date}
# Machine               : x86_64
# System                : Linux
# Release               : ${night >= slower ? '6.1.0-28-amd64' : '6.1.0-27-amd64'}
# Version               : #1 SMP PREEMPT_DYNAMIC Debian
# MPI Version           : 3.1
# MPI Thread Environment:


# Calling sequence was:

# ./IMB-MPI1

# Minimum message length in bytes:   0
# Maximum message length in bytes:   4194304
#
# MPI_Datatype                   :   MPI_BYTE
# MPI_Datatype for reductions    :   MPI_FLOAT
# MPI_Op                         :   MPI_SUM
#
#

# List of Benchmarks to run:

${benchmarks.map(b => '# ' + b[0]).join('\n')}
`;
  for (const [name, kind, latency, bandwidth] of benchmarks) {
    const factor = (name === 'Allreduce' && night >= slower ? 1.15 : 1) * (name === 'PingPong' && night >= faster ? 0.9 : 1);
    text += `
#---------------------------------------------------
# Benchmarking ${name}
# #processes = 2
#---------------------------------------------------
`;
    if (kind === 'barrier') {
      const t = latency * factor * noise();
      text += ` #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n         1000${f2(t * 0.97)}${f2(t)}${f2(t * 0.985)}\n`;
      continue;
    }
    text += kind === 'pingpong' ? '       #bytes #repetitions      t[usec]   Mbytes/sec\n'
                                : '       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]\n';
    for (const bytes of lengths) {
      const t = (latency + bytes / bandwidth) * factor * noise();
      const repetitions = bytes > 65536 ? Math.max(10, Math.round(640 * 65536 / bytes)) : 1000;
      const row = String(bytes).padStart(13) + String(repetitions).padStart(13);
      text += kind === 'pingpong' ? `${row}${f2(t)}${f2(bytes / t / 1.048576)}\n`
                                  : `${row}${f2(t * 0.97)}${f2(t)}${f2(t * 0.985)}\n`;
    }
  }
  text += '\n\n# All processes entering MPI_Finalize\n';
  writeFileSync(`${dir}/night${String(night).padStart(4, '0')}.txt`, text);
}
