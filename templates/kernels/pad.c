static void {{fn}}(const {{in0_t}}* x, {{out0_t}}* y) {
  /* Per axis: i = output index, j = index in the kept (cropped) input range, s = input offset. */
  int32_t o = 0;
  const int32_t s0 = 0;
{{#constant}}  const int ok0 = 1;
{{/constant}}{{#loops}}  for (int32_t i{{a}} = 0; i{{a}} < {{dim}}; ++i{{a}}) {
{{#plain}}    const int32_t s{{a}} = s{{p}} + i{{a}} * {{stride}};
{{#constant}}    const int ok{{a}} = ok{{p}};
{{/constant}}{{/plain}}{{^plain}}    int32_t j{{a}} = i{{a}} - {{pre}};
{{#constant}}    const int ok{{a}} = ok{{p}} && j{{a}} >= 0 && j{{a}} < {{kept}};
    const int32_t s{{a}} = ok{{a}} ? s{{p}} + (j{{a}} + {{lo}}) * {{stride}} : 0;
{{/constant}}{{#edge}}    if (j{{a}} < 0) j{{a}} = 0;
    if (j{{a}} > {{last}}) j{{a}} = {{last}};
    const int32_t s{{a}} = s{{p}} + (j{{a}} + {{lo}}) * {{stride}};
{{/edge}}{{#reflect}}{{#single}}    j{{a}} = 0;
{{/single}}{{^single}}    /* Reflect into [0, {{last}}] without repeating the edge; periodic for long pads. */
    j{{a}} %= {{period}};
    if (j{{a}} < 0) j{{a}} += {{period}};
    if (j{{a}} > {{last}}) j{{a}} = {{period}} - j{{a}};
{{/single}}    const int32_t s{{a}} = s{{p}} + (j{{a}} + {{lo}}) * {{stride}};
{{/reflect}}{{/plain}}{{/loops}}{{#constant}}  y[o++] = ok{{r}} ? x[s{{r}}] : ({{out0_t}}){{value}};
{{/constant}}{{^constant}}  y[o++] = x[s{{r}}];
{{/constant}}{{#loops}}  }
{{/loops}}}
