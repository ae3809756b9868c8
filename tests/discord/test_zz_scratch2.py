import json

import httpx
import respx
from fastapi.testclient import TestClient

from .signing import Discord, command
from .test_calls import call
from .test_play import r
from .test_tables import CDN, GM, PLAYER, said, sheet, table_open

COC7 = ('name = "Alice"\nsystem = "coc7"\nskills = { "Spot Hidden" = 35, dodge = 30 }\n'
        "luck = { current = 50, maximum = 99 }\n")
L = "9" * 5000


@respx.mock
def test_explore(client: TestClient, discord: Discord, endpoint) -> None:
    from d100.server.guard import Buckets, Limits
    endpoint.buckets = Buckets(Limits(burst=1000, per_second=1000.0))
    for w in ["coc7 1d6+" + L, "coc7 1d" + L, "coc7 .sc 1/1d6 " + L, "coc7 .en 侦查" + L,
              "coc7 sc 1/1d6 " + L, "coc7 sc 1/1d" + L, "coc7 50 @" + L, "coc7 50 b" + L,
              "coc7 FAR(" + L + ",50,100)", "coc7 50 shots" + L, "brp 50 luck=" + L,
              "coc7 50 luck" + L, "1d100<=" + L, "CC<=" + L, "coc7 " + "x" * 5000]:
        out = discord.post(client, command("roll", w))
        print(repr(w[:20]), out.status_code, json.dumps(out.json())[:300])
    respx.get(CDN).mock(return_value=httpx.Response(200, text=COC7))
    said(discord.post(client, table_open("coc7", user=GM, name="Gina")))
    said(discord.post(client, sheet(user=PLAYER, name="Pat")))
    for skill, words in [("1d6+" + L, ""), ("sc", "1/1d6 " + L), ("sc", "1/1d" + L),
                         ("spot hidden", "@" + L), ("spot hidden", "luck" + L),
                         ("spot hidden", "b" + L), (L, ""), ("spot hidden", "x" * 5000)]:
        out = discord.post(client, r("Alice", skill, words, user=PLAYER, name="Pat"))
        print("r", repr((skill[:12], words[:12])), out.status_code, json.dumps(out.json())[:300])
    for skill, words in [("spot hidden", "+" + L), ("spot hidden", "b" + L), (L, "")]:
        out = discord.post(client, call(skill, "Alice", words, user=GM, name="Gina"))
        print("call", repr((skill[:12], words[:12])), out.status_code, json.dumps(out.json())[:300])
