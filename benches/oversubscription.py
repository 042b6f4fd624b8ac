#!/usr/bin/env python3
"""GPU idle over cluster sizes at 1, 2, 4 and 8:1 oversubscription, per fabric: how often idle
falls as the same cluster is more oversubscribed, and the largest change between neighbouring
sizes (docs/model.md §7, docs/sizing.md known limits). The default job, 8 to 2,048 GPUs in steps
of 8, one `GET /v1/sweeps` per fabric and ratio against a running service.

Usage: python3 benches/oversubscription.py PORT [PORT ...]   (one block per service, e.g. two
builds side by side: FABRIC_TCO_BIND=127.0.0.1:PORT target/release/fabric-tco &)
"""
import json
import sys
import urllib.request

def sweep(port, fab, o):
    u=f"http://127.0.0.1:{port}/v1/sweeps?vary=gpus&from=8&to=2048&steps=256&fabrics={fab}&topology.oversubscription={o}"
    d=json.load(urllib.request.urlopen(u))
    return {r['gpus']: r['gpu_idle_fraction'] for r in d['rows'] if r.get('gpu_idle_fraction') is not None}
for port in sys.argv[1:]:
    print("port", port)
    for fab in ['infiniband','roce','roce_adaptive']:
        res={o: sweep(port,fab,o) for o in [1,2,4,8]}
        falls=0; worst=(0,None); jumps=(1,None)
        for g in res[1]:
            vals=[res[o].get(g) for o in [1,2,4,8]]
            if any(v is None for v in vals): continue
            if any(vals[i+1] < vals[i]*0.98 for i in range(3)): falls+=1
        for o in [1,2,4,8]:
            gs=sorted(res[o])
            for a,b in zip(gs,gs[1:]):
                if b-a!=8 or res[o][a]==0 or res[o][b]==0: continue
                if a<256: continue
                r=max(res[o][a]/res[o][b], res[o][b]/res[o][a])
                if r>jumps[0]: jumps=(r,(o,a,b,res[o][a],res[o][b]))
        print(f"  {fab}: sizes where idle falls >2% as o rises: {falls}/{len(res[1])}; largest neighbour jump (>=256 GPUs) {jumps[0]:.3f} {jumps[1]}")
        print("   1024:", [round(res[o].get(1024,float('nan'))*100,3) for o in [1,2,4,8]], " 1016:", [round(res[o].get(1016,float('nan'))*100,3) for o in [1,2,4,8]])
