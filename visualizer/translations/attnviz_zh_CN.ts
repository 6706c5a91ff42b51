<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>attnviz</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open checkpoint…</source>
        <translation>打开检查点(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Export view as &amp;PNG…</source>
        <translation>导出视图为 PNG(&amp;P)…</translation>
    </message>
    <message>
        <source>Export view as &amp;SVG…</source>
        <translation>导出视图为 SVG(&amp;S)…</translation>
    </message>
    <message>
        <source>Export &amp;trace (.npz)…</source>
        <translation>导出轨迹 .npz(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>To end</source>
        <translation>运行到结束</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show the &amp;mean of heads</source>
        <translation>显示各头的平均(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Colormap</source>
        <translation>配色(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Attention kind</source>
        <translation>注意力类型(&amp;A)</translation>
    </message>
    <message>
        <source>this model does not expose its raw attention scores, so there is no mask to show on them</source>
        <translation>这个模型不提供注意力的原始分数，因此没有可以施加在分数上的掩码</translation>
    </message>
    <message>
        <source>this model cannot be run teacher-forced</source>
        <translation>这个模型不能以教师强制方式运行</translation>
    </message>
    <message>
        <source>this model has no positional encoding</source>
        <translation>这个模型没有位置编码</translation>
    </message>
    <message>
        <source>this model does not divide its attention scores by √d_k</source>
        <translation>这个模型不把注意力分数除以 √d_k</translation>
    </message>
    <message>
        <source>this model cannot run without its ÷√d_k for the comparison</source>
        <translation>这个模型不能去掉 ÷√d_k 来做对比</translation>
    </message>
    <message>
        <source>this model has no normalisation layers</source>
        <translation>这个模型没有归一化层</translation>
    </message>
    <message>
        <source>this model does not record statistics around its norms</source>
        <translation>这个模型不记录归一化前后的统计量</translation>
    </message>
    <message>
        <source>this model has no encoder and decoder stacks of norms to show</source>
        <translation>这个模型没有可展示的编码器与解码器归一化层</translation>
    </message>
    <message>
        <source>&amp;Compare with another model…</source>
        <translation>与另一个模型比较(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Stop comparing</source>
        <translation>停止比较(&amp;S)</translation>
    </message>
    <message>
        <source>Compare A | B</source>
        <translation>比较 A | B</translation>
    </message>
    <message>
        <source>&amp;Device</source>
        <translation>设备(&amp;D)</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Source:</source>
        <translation>源文本：</translation>
    </message>
    <message>
        <source>Examples</source>
        <translation>示例</translation>
    </message>
    <message>
        <source>T</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>beam</source>
        <translation>束宽</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Attention Visualizer</source>
        <translation>注意力可视化</translation>
    </message>
    <message>
        <source>The previous model and generation are unchanged.</source>
        <translation>之前的模型和生成结果保持不变。</translation>
    </message>
    <message>
        <source>■ end of sequence</source>
        <translation>■ 序列结束</translation>
    </message>
    <message>
        <source>■ stopped at the maximum length</source>
        <translation>■ 已达最大长度而停止</translation>
    </message>
    <message>
        <source>&amp;About this model…</source>
        <translation>关于这个模型(&amp;A)…</translation>
    </message>
    <message>
        <source>a fresh random input</source>
        <translation>随机生成一个新输入</translation>
    </message>
    <message>
        <source>words with spaces and capitals</source>
        <translation>带空格和大写字母的单词</translation>
    </message>
    <message>
        <source>any printable ASCII</source>
        <translation>任意可打印 ASCII 字符</translation>
    </message>
    <message>
        <source>Chinese characters</source>
        <translation>汉字</translation>
    </message>
    <message>
        <source>ASCII and Chinese mixed</source>
        <translation>ASCII 与汉字混合</translation>
    </message>
    <message>
        <source>spaces, capitals and punctuation</source>
        <translation>空格、大写字母和标点</translation>
    </message>
    <message>
        <source>a sentence</source>
        <translation>一个句子</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>mixed scripts</source>
        <translation>中英文混合</translation>
    </message>
    <message>
        <source>unknown characters, copied by attention</source>
        <translation>未知字符，由注意力复制</translation>
    </message>
    <message>
        <source>by code point: space, capitals, then lowercase</source>
        <translation>按码位排序：空格、大写字母，然后小写字母</translation>
    </message>
    <message>
        <source>digits</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>Chinese, by code point</source>
        <translation>中文，按码位排序</translation>
    </message>
    <message>
        <source>ambiguous: 3 April or 4 March (try beam search, sampling)</source>
        <translation>有歧义：4 月 3 日还是 3 月 4 日（试试束搜索和采样）</translation>
    </message>
    <message>
        <source>only the US reading is a date</source>
        <translation>只有美式读法是合法日期</translation>
    </message>
    <message>
        <source>only the day-first reading is a date</source>
        <translation>只有日在前的读法是合法日期</translation>
    </message>
    <message>
        <source>ISO in, ISO out</source>
        <translation>ISO 格式进，ISO 格式出</translation>
    </message>
    <message>
        <source>Chinese numerals</source>
        <translation>汉字数字</translation>
    </message>
    <message>
        <source>answers drawn with known frequencies</source>
        <translation>答案按已知频率抽取</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Decoding:</source>
        <translation>解码：</translation>
    </message>
    <message>
        <source>speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>greedy</source>
        <translation>贪心</translation>
    </message>
    <message>
        <source>sampling (temperature)</source>
        <translation>采样（温度）</translation>
    </message>
    <message>
        <source>top-k sampling</source>
        <translation>top-k 采样</translation>
    </message>
    <message>
        <source>top-p (nucleus) sampling</source>
        <translation>top-p（核）采样</translation>
    </message>
    <message>
        <source>beam search</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>Output:</source>
        <translation>输出：</translation>
    </message>
    <message>
        <source>Encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>Masked decoder self-attention</source>
        <translation>掩码解码器自注意力</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>注意力头</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Hide the explanation</source>
        <translation>隐藏说明</translation>
    </message>
    <message>
        <source>Show the explanation</source>
        <translation>显示说明</translation>
    </message>
    <message>
        <source>decoder reads {start} + what it generated</source>
        <translation>解码器读入 {start} + 已生成的内容</translation>
    </message>
    <message>
        <source>decoder reads a target you type (teacher forcing)</source>
        <translation>解码器读入你输入的目标（教师强制）</translation>
    </message>
    <message>
        <source>what if: remove the causal mask</source>
        <translation>假设：去掉因果掩码</translation>
    </message>
    <message>
        <source>padded batch of two sources</source>
        <translation>两个源文本的填充批次</translation>
    </message>
    <message>
        <source>run a source first</source>
        <translation>请先运行一个源文本</translation>
    </message>
    <message>
        <source>running the model …</source>
        <translation>正在运行模型 …</translation>
    </message>
    <message>
        <source>running the model twice …</source>
        <translation>正在运行模型两次 …</translation>
    </message>
    <message>
        <source>target, e.g. noitnetta</source>
        <translation>目标，例如 noitnetta</translation>
    </message>
    <message>
        <source>WHAT-IF: the causal mask is removed; every position sees the whole target, which the model never did in training</source>
        <translation>假设实验：因果掩码已去掉；每个位置都能看到整个目标，模型在训练中从未这样做过</translation>
    </message>
    <message>
        <source>WHAT-IF on the right: no ÷√d_k in any attention layer</source>
        <translation>右侧为假设实验：所有注意力层都不除以 √d_k</translation>
    </message>
    <message>
        <source>entropy (nats)</source>
        <translation>熵（奈特）</translation>
    </message>
    <message>
        <source>no ÷√d_k</source>
        <translation>不除以 √d_k</translation>
    </message>
    <message>
        <source>prediction and cross-entropy (nats) at each decoder position, mean</source>
        <translation>解码器各位置的预测与交叉熵（奈特），平均</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>与之比较</translation>
    </message>
    <message>
        <source>Open checkpoint</source>
        <translation>打开检查点</translation>
    </message>
    <message>
        <source>the concept panels could not be loaded: {error}</source>
        <translation>无法加载概念面板：{error}</translation>
    </message>
    <message>
        <source>wrote {path}</source>
        <translation>已写入 {path}</translation>
    </message>
    <message>
        <source>wrote {path} and its .json</source>
        <translation>已写入 {path} 及其 .json</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Export view as PNG</source>
        <translation>导出视图为 PNG</translation>
    </message>
    <message>
        <source>Export view as SVG</source>
        <translation>导出视图为 SVG</translation>
    </message>
    <message>
        <source>could not write {path}</source>
        <translation>无法写入 {path}</translation>
    </message>
    <message>
        <source>nothing to export yet: run a source first</source>
        <translation>还没有可导出的内容：请先运行一个源文本</translation>
    </message>
    <message>
        <source>Export trace</source>
        <translation>导出轨迹</translation>
    </message>
    <message>
        <source>{names} already exist(s). Replace?</source>
        <translation>{names} 已存在。要替换吗？</translation>
    </message>
    <message>
        <source>could not write {path}: {reason}</source>
        <translation>无法写入 {path}：{reason}</translation>
    </message>
    <message>
        <source>loaded {name} on {device}</source>
        <translation>已在 {device} 上加载 {name}</translation>
    </message>
    <message>
        <source>not in the vocabulary, read as &lt;unk&gt;: {chars}</source>
        <translation>不在词表中，按 &lt;unk&gt; 读入：{chars}</translation>
    </message>
    <message>
        <source>stopped at the maximum length of {n} tokens</source>
        <translation>已达最大长度 {n} 个词元而停止</translation>
    </message>
    <message>
        <source>this model has no attention kind {kind}; showing {fallback}</source>
        <translation>这个模型没有注意力类型 {kind}；改为显示 {fallback}</translation>
    </message>
    <message>
        <source>layer {layer}, {who}: query {query} {query_token} → key {key} {key_token}: {value}</source>
        <translation>第 {layer} 层，{who}：查询 {query} {query_token} → 键 {key} {key_token}：{value}</translation>
    </message>
    <message>
        <source>mean of heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>head {n}</source>
        <translation>头 {n}</translation>
    </message>
    <message>
        <source>masked (future)</source>
        <translation>已屏蔽（未来）</translation>
    </message>
    <message>
        <source>layer {n}</source>
        <translation>第 {n} 层</translation>
    </message>
    <message>
        <source>query (source)</source>
        <translation>查询（源文本）</translation>
    </message>
    <message>
        <source>query (decoder input)</source>
        <translation>查询（解码器输入）</translation>
    </message>
    <message>
        <source>key (decoder input)</source>
        <translation>键（解码器输入）</translation>
    </message>
    <message>
        <source>key (source)</source>
        <translation>键（源文本）</translation>
    </message>
    <message>
        <source>before the first step</source>
        <translation>第一步之前</translation>
    </message>
    <message>
        <source>before the first step: only the encoder has run</source>
        <translation>第一步之前：只运行了编码器</translation>
    </message>
    <message>
        <source>step {n}</source>
        <translation>第 {n} 步</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Enter (in the Source box) run and play · → step · ← back · Space play/pause</source>
        <translation>Enter（在源文本框中）运行并播放 · → 单步 · ← 后退 · 空格 播放/暂停</translation>
    </message>
    <message>
        <source>Home reset · End run to end</source>
        <translation>Home 重置 · End 运行到结束</translation>
    </message>
    <message>
        <source>1, 2, 3 … the model's kinds of attention, in the order of the tabs · M mean of heads</source>
        <translation>1、2、3 … 按标签顺序切换模型的注意力类型 · M 各头平均</translation>
    </message>
    <message>
        <source>Ctrl+O open · Ctrl+Shift+O open a Hugging Face folder</source>
        <translation>Ctrl+O 打开 · Ctrl+Shift+O 打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>Ctrl+E export PNG · Ctrl+T export trace · Ctrl+Q quit</source>
        <translation>Ctrl+E 导出 PNG · Ctrl+T 导出轨迹 · Ctrl+Q 退出</translation>
    </message>
    <message>
        <source>Ctrl+K compare with another model · Ctrl+Shift+K stop comparing</source>
        <translation>Ctrl+K 与另一个模型比较 · Ctrl+Shift+K 停止比较</translation>
    </message>
    <message>
        <source>Click a head to enlarge it; hover a cell to read its weight.</source>
        <translation>点击一个头可放大；把鼠标悬停在格子上可读出权重。</translation>
    </message>
    <message>
        <source>no model yet</source>
        <translation>尚未加载模型</translation>
    </message>
    <message>
        <source>no attention</source>
        <translation>没有注意力</translation>
    </message>
    <message>
        <source>waiting for both models</source>
        <translation>正在等待两个模型</translation>
    </message>
    <message>
        <source>Both models have run to step {step}. {side} has no attention: there is no A − B to show.</source>
        <translation>两个模型都已运行到第 {step} 步。{side} 没有注意力：没有 A − B 可显示。</translation>
    </message>
    <message>
        <source>B has no {kind}: no difference to show</source>
        <translation>B 没有{kind}：没有差异可显示</translation>
    </message>
    <message>
        <source>the two sides' shapes differ (other tokens or lengths): no difference to show</source>
        <translation>两侧的形状不同（词元或长度不同）：没有差异可显示</translation>
    </message>
    <message>
        <source>A − B of the selected head: largest difference {bound:.3f}</source>
        <translation>所选头的 A − B：最大差异 {bound:.3f}</translation>
    </message>
    <message>
        <source>B: {problem} (B shows its last run)</source>
        <translation>B：{problem}（B 显示的是它上一次的运行）</translation>
    </message>
    <message>
        <source>what-if</source>
        <translation>假设实验</translation>
    </message>
    <message>
        <source>forced by you</source>
        <translation>由你强制</translation>
    </message>
    <message>
        <source>step {n}: {token} ({how})</source>
        <translation>第 {n} 步：{token}（{how}）</translation>
    </message>
    <message>
        <source>this model has no attention: the decoder sees only the final encoder state</source>
        <translation>这个模型没有注意力：解码器只看到编码器的最终状态</translation>
    </message>
    <message>
        <source>Step through it as usual: the output, the Decoding and Beam search pages work. Why attention shows what it cannot do.</source>
        <translation>照常逐步运行：输出、解码和束搜索页面都能使用。“为什么需要注意力”一页展示它做不到的事。</translation>
    </message>
    <message>
        <source>From:</source>
        <translation>源语言：</translation>
    </message>
    <message>
        <source>To:</source>
        <translation>目标语言：</translation>
    </message>
    <message>
        <source>Open &amp;folder (Hugging Face model)…</source>
        <translation>打开文件夹（Hugging Face 模型）(&amp;F)…</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder</source>
        <translation>打开 Hugging Face 模型文件夹</translation>
    </message>
    <message>
        <source>this model has no language code {code}</source>
        <translation>此模型没有语言代码 {code}</translation>
    </message>
    <message>
        <source>Merge pieces into &amp;words</source>
        <translation>子词合并为词(&amp;W)</translation>
    </message>
    <message>
        <source>W attention over words (subword models: pieces merged)</source>
        <translation>W 按词显示注意力（子词模型：子词合并）</translation>
    </message>
    <message>
        <source>this model adds its positions as a table to the tokens, not as a bias on the scores</source>
        <translation>此模型把位置作为表格加到词元上，而不是作为分数上的偏置</translation>
    </message>
    <message>
        <source>Opening the model: {stage}…</source>
        <translation>正在打开模型：{stage}…</translation>
    </message>
    <message>
        <source>checking the folder</source>
        <translation>检查文件夹</translation>
    </message>
    <message>
        <source>importing the Hugging Face library</source>
        <translation>导入 Hugging Face 库</translation>
    </message>
    <message>
        <source>reading the tokenizer</source>
        <translation>读取分词器</translation>
    </message>
    <message>
        <source>reading the weights</source>
        <translation>读取权重</translation>
    </message>
    <message>
        <source>checking the weights on a test input</source>
        <translation>用测试输入检查权重</translation>
    </message>
    <message>
        <source>moving the model to its device</source>
        <translation>把模型移到它的设备上</translation>
    </message>
    <message>
        <source>finding the attention and norm layers</source>
        <translation>查找注意力层和归一化层</translation>
    </message>
    <message>
        <source>decoding held-out examples</source>
        <translation>解码留出集样例</translation>
    </message>
    <message>
        <source>at least one head must time the words</source>
        <translation>至少要有一个头来给词定时</translation>
    </message>
    <message>
        <source>the words are timed by {heads}</source>
        <translation>现在由 {heads} 给词定时</translation>
    </message>
    <message>
        <source>hearing {name} (File &gt; Open audio); type text to run text instead</source>
        <translation>正在听 {name}（文件 &gt; 打开音频）；输入文字即可改为运行文字</translation>
    </message>
    <message>
        <source>Open &amp;audio (speech model)…</source>
        <translation>打开音频（语音模型）(&amp;A)…</translation>
    </message>
    <message>
        <source>Open audio</source>
        <translation>打开音频</translation>
    </message>
    <message>
        <source>decoding reverse: with unknown characters</source>
        <translation>解码含未知字符的 reverse: 样例</translation>
    </message>
    <message>
        <source>scoring pick:'s answers</source>
        <translation>为 pick: 的各个答案打分</translation>
    </message>
    <message>
        <source>measuring what each head does</source>
        <translation>测量每个头的作用</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>(the model's choice)</source>
        <translation>（由模型决定）</translation>
    </message>
    <message>
        <source>the language of the source (its first token for NLLB)</source>
        <translation>源文本的语言（NLLB 中是它的第一个词元）</translation>
    </message>
    <message>
        <source>the language to write: forced as the first output token</source>
        <translation>要写出的语言：强制作为第一个输出词元</translation>
    </message>
    <message>
        <source>this model cannot be differentiated, so there are no gradients to attribute with</source>
        <translation>这个模型不能求导，因此没有可用于归因的梯度</translation>
    </message>
    <message>
        <source>this model cannot run with a head zeroed</source>
        <translation>这个模型不能在某个头置零的情况下运行</translation>
    </message>
    <message>
        <source>this model cannot score references teacher-forced in a batch</source>
        <translation>这个模型不能以教师强制的方式成批给参考答案打分</translation>
    </message>
    <message>
        <source>this model&apos;s decoder layers cannot be read through its output layer</source>
        <translation>这个模型的解码器各层不能经由其输出层读出</translation>
    </message>
    <message>
        <source>Open &amp;replay…</source>
        <translation>打开回放(&amp;R)…</translation>
    </message>
    <message>
        <source>&amp;Watch attention form (shipped replay)</source>
        <translation>观看注意力的形成（随附回放）(&amp;W)</translation>
    </message>
    <message>
        <source>Open replay</source>
        <translation>打开回放</translation>
    </message>
    <message>
        <source>&lt;b&gt;Is attention an explanation?&lt;/b&gt; Jain &amp;amp; Wallace (2019) found attention often disagrees with gradient-based importance; Abnar &amp;amp; Zuidema (2020) found attention &lt;i&gt;rolled out&lt;/i&gt; through the layers (½A + ½I per layer, for the residual path) tracks it better. Each row scores, for the shown output token f = log p, every source token and, right of the orange line, every token the decoder had read. &lt;b&gt;Gradient × input&lt;/b&gt;: f's change along each token's vector. &lt;b&gt;Integrated gradients&lt;/b&gt;: the gradient averaged on the path from &lt;tt&gt;&amp;lt;pad&amp;gt;&lt;/tt&gt; vectors to the input; the scores add up to f(input) − f(baseline). &lt;b&gt;Occlusion&lt;/b&gt;: how much f drops when that source token is replaced by &lt;tt&gt;&amp;lt;unk&amp;gt;&lt;/tt&gt; (or removed). Rows are scaled by their largest |value|: red helps, blue works against. Below: each cross-attention head's rank correlation (Spearman) with each method; click a head to choose it.</source>
        <translation>&lt;b&gt;注意力是解释吗？&lt;/b&gt;Jain 与 Wallace（2019）发现注意力常与基于梯度的重要性不一致；Abnar 与 Zuidema（2020）发现把注意力逐层&lt;i&gt;展开（rollout）&lt;/i&gt;（每层取 ½A + ½I，对应残差路径）更贴近重要性。每一行为当前输出词元 f = log p 给每个输入词元、以及橙线右侧解码器读过的每个词元打分。&lt;b&gt;梯度 × 输入&lt;/b&gt;：f 沿各词元自身向量方向的变化。&lt;b&gt;积分梯度&lt;/b&gt;：从 &lt;tt&gt;&amp;lt;pad&amp;gt;&lt;/tt&gt; 向量到输入的路径上平均的梯度，各分数之和等于 f(输入) − f(基线)。&lt;b&gt;遮挡&lt;/b&gt;：把该输入词元换成 &lt;tt&gt;&amp;lt;unk&amp;gt;&lt;/tt&gt;（或删去）后 f 下降多少。每行按其最大 |值| 缩放：红色表示促成，蓝色表示起反作用。下方：每个交叉注意力头与各方法的秩相关（Spearman）；点击一个头即可选中。</translation>
    </message>
    <message>
        <source>Integrated gradients points:</source>
        <translation>积分梯度点数：</translation>
    </message>
    <message>
        <source>Occlusion:</source>
        <translation>遮挡：</translation>
    </message>
    <message>
        <source>replace by &lt;unk&gt;</source>
        <translation>换成 &lt;unk&gt;</translation>
    </message>
    <message>
        <source>remove the token</source>
        <translation>删去该词元</translation>
    </message>
    <message>
        <source>Baseline:</source>
        <translation>基线：</translation>
    </message>
    <message>
        <source>&lt;pad&gt; vectors</source>
        <translation>&lt;pad&gt; 向量</translation>
    </message>
    <message>
        <source>zero vectors</source>
        <translation>零向量</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Compute again</source>
        <translation>重新计算</translation>
    </message>
    <message>
        <source>Run a source and take at least one step: the page explains the shown output token.</source>
        <translation>请先运行一个输入并至少前进一步：本页解释当前显示的输出词元。</translation>
    </message>
    <message>
        <source>computing the attributions of step {step} …</source>
        <translation>正在计算第 {step} 步的归因……</translation>
    </message>
    <message>
        <source>Stopped. Press “Compute again” to compute step {step}.</source>
        <translation>已停止。按“重新计算”计算第 {step} 步。</translation>
    </message>
    <message>
        <source>Step {step} writes {token} (log p = {logprob}). Attention head: cross-attention L{layer} H{head}. {ig} {occlusion}</source>
        <translation>第 {step} 步写出 {token}（log p = {logprob}）。注意力头：交叉注意力第 {layer} 层第 {head} 个头。{ig}{occlusion}</translation>
    </message>
    <message>
        <source>Integrated gradients: {points} points; the scores add up to f(x) − f(x′) = {difference} within {gap} (the tolerance is {tolerance}).</source>
        <translation>积分梯度：{points} 个点；各分数之和与 f(x) − f(x′) = {difference} 相差 {gap}（容差为 {tolerance}）。</translation>
    </message>
    <message>
        <source>Integrated gradients: {points} points, not the {asked} asked for: the points are doubled until the scores add up to f(x) − f(x′) = {difference} within {tolerance}; with {points} they are off by {gap}.</source>
        <translation>积分梯度：用了 {points} 个点，而不是所设的 {asked} 个：点数会逐次加倍，直到各分数之和与 f(x) − f(x′) = {difference} 相差不超过 {tolerance}；用 {points} 个点时相差 {gap}。</translation>
    </message>
    <message>
        <source>Integrated gradients: {points} points, not the {asked} asked for: the points are doubled, at most {doublings} times, until the scores add up to f(x) − f(x′) = {difference} within {tolerance}; with {points} they are still off by {gap}.</source>
        <translation>积分梯度：用了 {points} 个点，而不是所设的 {asked} 个：点数会逐次加倍（最多 {doublings} 次），直到各分数之和与 f(x) − f(x′) = {difference} 相差不超过 {tolerance}；用 {points} 个点时仍相差 {gap}。</translation>
    </message>
    <message>
        <source>score ÷ its row's largest |score|</source>
        <translation>分数 ÷ 该行最大 |分数|</translation>
    </message>
    <message>
        <source>Spearman ρ</source>
        <translation>Spearman ρ</translation>
    </message>
    <message>
        <source>Occlusion replaced each source token by &lt;unk&gt;.</source>
        <translation>遮挡把每个输入词元换成了 &lt;unk&gt;。</translation>
    </message>
    <message>
        <source>Occlusion removed each source token (the tokenizer has no &lt;unk&gt;, or you chose it).</source>
        <translation>遮挡删去了每个输入词元（分词器没有 &lt;unk&gt;，或是你选择了删除）。</translation>
    </message>
    <message>
        <source>This model has no attention: only the gradient and occlusion rows have values.</source>
        <translation>这个模型没有注意力：只有梯度和遮挡两类行有数值。</translation>
    </message>
    <message>
        <source>attention L{layer} H{head}</source>
        <translation>注意力 第 {layer} 层第 {head} 头</translation>
    </message>
    <message>
        <source>attention, mean of layer {layer}</source>
        <translation>注意力 第 {layer} 层平均</translation>
    </message>
    <message>
        <source>rollout</source>
        <translation>rollout</translation>
    </message>
    <message>
        <source>gradient × input</source>
        <translation>梯度 × 输入</translation>
    </message>
    <message>
        <source>integrated gradients</source>
        <translation>积分梯度</translation>
    </message>
    <message>
        <source>occlusion</source>
        <translation>遮挡</translation>
    </message>
    <message>
        <source>agreement with {method}</source>
        <translation>与{method}的一致性</translation>
    </message>
    <message>
        <source>source tokens | tokens the decoder read</source>
        <translation>输入词元 | 解码器读过的词元</translation>
    </message>
    <message>
        <source>{method} · {token} ({where} {index}): {value}</source>
        <translation>{method} · {token}（{where}第 {index} 个）：{value}</translation>
    </message>
    <message>
        <source>L{layer} H{head} · Spearman ρ with {method}: {value}</source>
        <translation>第 {layer} 层第 {head} 头 · 与{method}的 Spearman ρ：{value}</translation>
    </message>
    <message>
        <source>source</source>
        <comment>attribution: a token of the source</comment>
        <translation>输入</translation>
    </message>
    <message>
        <source>read</source>
        <translation>已读</translation>
    </message>
    <message>
        <source>WHAT-IF active: the attributions explain the model as shown, with its what-ifs</source>
        <translation>假设实验生效中：归因解释的是当前显示的、带假设实验的模型</translation>
    </message>
    <message>
        <source>&lt;b&gt;Which heads matter?&lt;/b&gt; Michel et al. (2019) zeroed attention heads one at a time and found that many can go with little loss, while encoder-decoder (cross) attention depends on its heads more than self-attention does. Each map below is one kind of attention, layers × heads: how much log-likelihood of the reference (nats per sequence) the model loses when that head alone is zeroed, and the exact match left. &lt;b&gt;Click a head&lt;/b&gt; to zero it in the live model (again to restore it); the slider zeroes the &lt;i&gt;k&lt;/i&gt; least important heads together, and the curve shows the exact match as heads are removed.</source>
        <translation>&lt;b&gt;哪些头重要？&lt;/b&gt;Michel 等（2019）逐个把注意力头置零，发现许多头去掉后几乎没有损失，而编码器-解码器（交叉）注意力比自注意力更依赖它的头。下面每张图是一种注意力，层 × 头：单独把该头置零时，模型对参考答案的对数似然损失多少（每个序列的奈特数），以及剩下的完全匹配率。&lt;b&gt;点击一个头&lt;/b&gt;即在实时模型中把它置零（再点一次恢复）；滑块把最不重要的 &lt;i&gt;k&lt;/i&gt; 个头一起置零，曲线显示随着去掉的头增多完全匹配率的变化。</translation>
    </message>
    <message>
        <source>Measure on:</source>
        <translation>测量于：</translation>
    </message>
    <message>
        <source>fresh task examples</source>
        <translation>新的任务样例</translation>
    </message>
    <message>
        <source>this source</source>
        <translation>当前输入</translation>
    </message>
    <message>
        <source>the sources run on this model</source>
        <translation>在此模型上运行过的输入</translation>
    </message>
    <message>
        <source>Examples:</source>
        <translation>样例数：</translation>
    </message>
    <message>
        <source>Measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <source>Restore all heads</source>
        <translation>恢复所有头</translation>
    </message>
    <message>
        <source>Zero the k least important heads:</source>
        <translation>把最不重要的 k 个头置零：</translation>
    </message>
    <message>
        <source>measuring each head on {n} sources …</source>
        <translation>正在在 {n} 个输入上逐个测量每个头……</translation>
    </message>
    <message>
        <source>Stopped. Press “Measure” to measure again.</source>
        <translation>已停止。按“测量”重新测量。</translation>
    </message>
    <message>
        <source>Run a source first: its output is the reference.</source>
        <translation>请先运行一个输入：它的输出就是参考答案。</translation>
    </message>
    <message>
        <source>Run some sources first: for a model without a known task, importance is measured on the sources you have run, with the model's own outputs as references.</source>
        <translation>请先运行一些输入：对没有已知任务的模型，重要性在你运行过的输入上测量，以模型自己的输出为参考。</translation>
    </message>
    <message>
        <source>Sample: {n}; references: {references}. As trained: exact match {exact:.0%}, log-likelihood {ll} nats per sequence. Most important: {most}.</source>
        <translation>样本：{n} 个输入；参考答案：{references}。按训练结果：完全匹配率 {exact:.0%}，对数似然 {ll} 奈特/序列。最重要的：{most}。</translation>
    </message>
    <message>
        <source>the task's answers</source>
        <translation>任务的答案</translation>
    </message>
    <message>
        <source>the model's own outputs (exact match: the output did not change)</source>
        <translation>模型自己的输出（完全匹配：输出没有改变）</translation>
    </message>
    <message>
        <source>{kind}: log-likelihood drop</source>
        <translation>{kind}：对数似然下降</translation>
    </message>
    <message>
        <source>exact match with the k least important heads zeroed</source>
        <translation>把最不重要的 k 个头置零后的完全匹配率</translation>
    </message>
    <message>
        <source>heads zeroed (k)</source>
        <translation>置零的头数（k）</translation>
    </message>
    <message>
        <source>exact match (%)</source>
        <translation>完全匹配率（%）</translation>
    </message>
    <message>
        <source>k = {k}: exact match {exact:.0%} on the sample</source>
        <translation>k = {k}：样本上的完全匹配率 {exact:.0%}</translation>
    </message>
    <message>
        <source>Zeroed in the live model: {heads}</source>
        <translation>实时模型中已置零：{heads}</translation>
    </message>
    <message>
        <source>No head is zeroed: the model runs as trained.</source>
        <translation>没有头被置零：模型按训练结果运行。</translation>
    </message>
    <message>
        <source>{kind} L{layer} H{head}: log-likelihood drop {drop} nats, exact match {exact:.0%} with it zeroed</source>
        <translation>{kind} 第 {layer} 层第 {head} 头：对数似然下降 {drop} 奈特，置零后完全匹配率 {exact:.0%}</translation>
    </message>
    <message>
        <source>WHAT-IF: {n} head(s) zeroed in the live model</source>
        <translation>假设实验：实时模型中有 {n} 个头被置零</translation>
    </message>
    <message>
        <source>&lt;b&gt;Logit lens.&lt;/b&gt; The decoder builds its answer layer by layer. Reading a decoder layer's output through the model's own final norm and output layer gives the next-token distribution the model would have if it stopped there (nostalgebraist 2020). The heatmap: for each layer (row) and each step written (column), the probability of the token the model actually wrote there; each cell names the token that layer finds most likely. Click a cell to choose it; the table below gives that step's most likely tokens after every layer (the written token underlined in bold), with the written token's probability and rank. The last layer is the model's own distribution.</source>
        <translation>&lt;b&gt;Logit lens（逻辑透镜）。&lt;/b&gt;解码器逐层构建它的答案。把某个解码器层的输出经过模型自己的最终归一化和输出层读出，就得到模型若停在那一层时的下一个词元分布（nostalgebraist 2020）。热图：每一行是一层，每一列是写出的一步，格子的颜色是该层给模型在这一步实际写出的词元的概率；格子里写的是该层认为最可能的词元。点击一个格子即可选中它；下方的表格列出这一步在每一层之后最可能的词元（写出的词元以粗体加下划线标出），以及写出的词元的概率和名次。最后一层就是模型自己的分布。</translation>
    </message>
    <message>
        <source>Run a source and take at least one step: the lens reads the shown step.</source>
        <translation>请先运行一个输入并至少前进一步：透镜读取当前显示的那一步。</translation>
    </message>
    <message>
        <source>#{n}</source>
        <translation>第 {n}</translation>
    </message>
    <message>
        <source>Layer {layer}, step {step}: {written} (written) {p} (rank {rank}); most likely {top} {top_p}</source>
        <translation>第 {layer} 层，第 {step} 步：{written}（写出的）{p}（名次 {rank}）；最可能的是 {top} {top_p}</translation>
    </message>
    <message>
        <source>p(written)</source>
        <translation>p(写出的)</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>名次</translation>
    </message>
    <message>
        <source>Step {step} writes {token}. {appears}</source>
        <translation>第 {step} 步写出 {token}。{appears}</translation>
    </message>
    <message>
        <source>It is the most likely token from layer {layer} on.</source>
        <translation>从第 {layer} 层起它就是最可能的词元。</translation>
    </message>
    <message>
        <source>It becomes the most likely token only at the output.</source>
        <translation>直到输出时它才成为最可能的词元。</translation>
    </message>
    <message>
        <source>The lens reads the model as trained: the what-ifs shown elsewhere are not applied here.</source>
        <translation>透镜读取的是按训练结果的模型：其他地方显示的假设实验在这里不生效。</translation>
    </message>
    <message>
        <source>Open a model to see its next-token distribution.</source>
        <translation>请先打开一个模型，才能看到它的下一个词元分布。</translation>
    </message>
    <message>
        <source>No token has been chosen yet: press Step (→) to run the first decoder step.</source>
        <translation>还没有选出任何词元：按“单步”（→）运行解码器的第一步。</translation>
    </message>
    <message>
        <source>Step {step}: the decoder read &lt;b&gt;{input}&lt;/b&gt; and chose &lt;b&gt;{token}&lt;/b&gt;{how}</source>
        <translation>第 {step} 步：解码器读入 &lt;b&gt;{input}&lt;/b&gt;，选出 &lt;b&gt;{token}&lt;/b&gt;{how}</translation>
    </message>
    <message>
        <source> (forced by you)</source>
        <translation>（由你强制指定）</translation>
    </message>
    <message>
        <source>, p = {p:.3f}</source>
        <translation>，p = {p:.3f}</translation>
    </message>
    <message>
        <source>, model p = {p:.3f}, drawn with p = {drawn:.3f} after the settings</source>
        <translation>，模型概率 p = {p:.3f}，按设置处理后抽取时 p = {drawn:.3f}</translation>
    </message>
    <message>
        <source>rest</source>
        <translation>其余</translation>
    </message>
    <message>
        <source>model p</source>
        <translation>模型概率</translation>
    </message>
    <message>
        <source>after the settings</source>
        <translation>按设置处理后</translation>
    </message>
    <message>
        <source>. It ranks {rank} of {vocab} and is drawn as its own bar, left of the rest.</source>
        <translation>。它在 {vocab} 个词元中排第 {rank}，单独画成一根柱子，位于“其余”左边。</translation>
    </message>
    <message>
        <source>Entropy of the model's distribution: &lt;b&gt;{nats:.3f} nats = {bits:.3f} bits&lt;/b&gt; (as uncertain as a fair choice among {perplexity:.1f} tokens). After the settings: &lt;b&gt;{fnats:.3f} nats = {fbits:.3f} bits&lt;/b&gt; ({fperplexity:.1f}); {kept} of {vocab} tokens can be drawn.</source>
        <translation>模型分布的熵：&lt;b&gt;{nats:.3f} 奈特 = {bits:.3f} 比特&lt;/b&gt;（不确定程度相当于在 {perplexity:.1f} 个词元中均匀地选）。按设置处理后：&lt;b&gt;{fnats:.3f} 奈特 = {fbits:.3f} 比特&lt;/b&gt;（{fperplexity:.1f}）；{vocab} 个词元中有 {kept} 个可能被抽到。</translation>
    </message>
    <message>
        <source>Greedy: always the most likely token; temperature, top-k and top-p are not used.</source>
        <translation>贪心解码：总是取概率最大的词元；温度、top-k 和 top-p 都不起作用。</translation>
    </message>
    <message>
        <source>Beam search, width {width}: the token comes from the best hypothesis (see the Beam panel), so it need not be this step's most likely one; the model's probabilities are used as they are.</source>
        <translation>束搜索，束宽 {width}：词元取自得分最高的假设（见“束搜索”面板），所以不一定是这一步概率最大的词元；直接使用模型的概率。</translation>
    </message>
    <message>
        <source>Sampling at temperature {t:g} from the whole vocabulary (seed {seed}).</source>
        <translation>按温度 {t:g} 在整个词表上采样（随机种子 {seed}）。</translation>
    </message>
    <message>
        <source>Top-k sampling: temperature {t:g}, keep the {k} most likely tokens, renormalise and draw (seed {seed}).</source>
        <translation>Top-k 采样：温度 {t:g}，只保留概率最大的 {k} 个词元，重新归一化后抽取（随机种子 {seed}）。</translation>
    </message>
    <message>
        <source>Top-p (nucleus) sampling: temperature {t:g}, keep the smallest set of most likely tokens whose probability reaches {p:g}, renormalise and draw (seed {seed}).</source>
        <translation>Top-p（核）采样：温度 {t:g}，保留累计概率达到 {p:g} 的最少的高概率词元，重新归一化后抽取（随机种子 {seed}）。</translation>
    </message>
    <message>
        <source> &lt;i&gt;The steps are being regenerated with these settings; the token shown was chosen with the previous ones.&lt;/i&gt;</source>
        <translation> &lt;i&gt;正在用这些设置重新生成；图中所选的词元还是按之前的设置选出的。&lt;/i&gt;</translation>
    </message>
    <message>
        <source>Click a candidate's bar to force it at this step: a branch, later steps are dropped and Step continues from your choice.</source>
        <translation>点击某个候选词元的柱子，就在这一步强制选它：这是一个分支，之后的步骤会被丢弃，再按“单步”就从你的选择继续生成。</translation>
    </message>
    <message>
        <source>Undo forcing</source>
        <translation>撤销强制</translation>
    </message>
    <message>
        <source>Regenerate up to this step with the model's own choices (drops every forced token)</source>
        <translation>按模型自己的选择重新生成到这一步（去掉所有被强制的词元）</translation>
    </message>
    <message>
        <source>{token}: rank {rank}, model p = {p:.4f}, after the settings {f:.4f}{cut} — click to force</source>
        <translation>{token}：排第 {rank}，模型概率 {p:.4f}，按设置处理后 {f:.4f}{cut} —— 点击即强制选它</translation>
    </message>
    <message>
        <source>rest: {n} less likely tokens together, model p = {p:.4f}, after the settings {f:.4f}</source>
        <translation>其余：{n} 个概率较小的词元合计，模型概率 {p:.4f}，按设置处理后 {f:.4f}</translation>
    </message>
    <message>
        <source> (cut off)</source>
        <translation>（已被截掉）</translation>
    </message>
    <message>
        <source>cut off</source>
        <translation>被截掉</translation>
    </message>
    <message>
        <source>log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>Probabilities on a logarithmic axis, down to 10⁻⁸: shows the unlikely tokens too</source>
        <translation>用对数坐标画概率（低至 10⁻⁸），概率很小的词元也看得见</translation>
    </message>
    <message>
        <source>chosen</source>
        <translation>选中</translation>
    </message>
    <message>
        <source>forced</source>
        <translation>强制</translation>
    </message>
    <message>
        <source>data p</source>
        <translation>数据概率</translation>
    </message>
    <message>
        <source>&lt;span style='color:{color}'&gt;—&lt;/span&gt; The data's own probabilities for this task and what has been generated so far: the model's distance from them (total variation, 0 = the same, 1 = disjoint) is &lt;b&gt;{tv:.3f}&lt;/b&gt;.</source>
        <translation>&lt;span style='color:{color}'&gt;—&lt;/span&gt; 对这个任务和已生成的部分，数据本身给出的概率：模型与它的距离（总变差距离，0 = 相同，1 = 完全不重叠）为 &lt;b&gt;{tv:.3f}&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>, data p = {d:.4f}</source>
        <translation>，数据概率 {d:.4f}</translation>
    </message>
    <message>
        <source>self-attention</source>
        <translation>自注意力</translation>
    </message>
    <message>
        <source>masked self-attention</source>
        <translation>掩码自注意力</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>feed-forward</source>
        <translation>前馈网络</translation>
    </message>
    <message>
        <source>Layers of:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>encoder</source>
        <translation>编码器</translation>
    </message>
    <message>
        <source>decoder</source>
        <translation>解码器</translation>
    </message>
    <message>
        <source>mean</source>
        <comment>a statistic: the mean of the features</comment>
        <translation>均值</translation>
    </message>
    <message>
        <source>std</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>● input x + Sublayer(x)</source>
        <translation>● 输入 x + Sublayer(x)</translation>
    </message>
    <message>
        <source>■ output LayerNorm(…)</source>
        <translation>■ 输出 LayerNorm(…)</translation>
    </message>
    <message>
        <source>- - β average (mean) · γ size (std)</source>
        <translation>- - β 平均值（均值）· γ 大小（标准差）</translation>
    </message>
    <message>
        <source>Encoder layer {layer}: one point per source token.</source>
        <translation>编码器第 {layer} 层：每个点是一个源词元。</translation>
    </message>
    <message>
        <source>Decoder layer {layer}: one point per decoder step (labelled by the token it read).</source>
        <translation>解码器第 {layer} 层：每个点是一个解码步（标注为该步读入的词元）。</translation>
    </message>
    <message>
        <source>Before and after each Add &amp; Norm</source>
        <translation>每个 Add &amp; Norm 的前与后</translation>
    </message>
    <message>
        <source>LayerNorm vs BatchNorm on a padded batch</source>
        <translation>填充批次上的 LayerNorm 与 BatchNorm</translation>
    </message>
    <message>
        <source>Step forward to see the decoder's statistics, one step at a time.</source>
        <translation>向前走一步，即可逐步看到解码器的统计量。</translation>
    </message>
    <message>
        <source>Add &amp; Norm {i} · {name}</source>
        <translation>Add &amp; Norm {i} · {name}</translation>
    </message>
    <message>
        <source>Norm {i} · before {name}</source>
        <translation>Norm {i} · {name}之前</translation>
    </message>
    <message>
        <source>feature</source>
        <translation>特征</translation>
    </message>
    <message>
        <source>BatchNorm mean, per feature</source>
        <translation>BatchNorm 均值（每个特征）</translation>
    </message>
    <message>
        <source>BatchNorm std, per feature</source>
        <translation>BatchNorm 标准差（每个特征）</translation>
    </message>
    <message>
        <source>LayerNorm mean, per token of row {row}</source>
        <translation>LayerNorm 均值（第 {row} 行的每个词元）</translation>
    </message>
    <message>
        <source>LayerNorm std, per token of row {row}</source>
        <translation>LayerNorm 标准差（第 {row} 行的每个词元）</translation>
    </message>
    <message>
        <source>— pads included</source>
        <translation>— 计入填充</translation>
    </message>
    <message>
        <source>— real tokens only</source>
        <translation>— 仅真实词元</translation>
    </message>
    <message>
        <source>● batched with padding</source>
        <translation>● 与填充同批</translation>
    </message>
    <message>
        <source>— alone</source>
        <translation>— 单独运行</translation>
    </message>
    <message>
        <source>▒ &lt;pad&gt;</source>
        <translation>▒ &lt;pad&gt;</translation>
    </message>
    <message>
        <source>Running the padded batch through the model…</source>
        <translation>正在用模型运行填充后的批次…</translation>
    </message>
    <message>
        <source>&lt;b&gt;A padded batch&lt;/b&gt; at the first Add &amp;amp; Norm (encoder layer 1): row 1 “{a}” ({na} tokens), row 2 “{b}” ({nb} tokens + {pads} &amp;lt;pad&amp;gt;). &lt;span style='color:{red}'&gt;&lt;b&gt;BatchNorm&lt;/b&gt;&lt;/span&gt;, per feature over both rows and all positions: counting the pads moves a feature's mean by up to &lt;b&gt;{dmean:.3g}&lt;/b&gt; and its std by up to &lt;b&gt;{dstd:.3g}&lt;/b&gt;. &lt;span style='color:{blue}'&gt;&lt;b&gt;LayerNorm&lt;/b&gt;&lt;/span&gt;, per token over its {d} features: the real tokens' mean and std differ by at most &lt;b&gt;{dln:.1e}&lt;/b&gt; batched vs alone — padding changes nothing.</source>
        <translation>&lt;b&gt;填充后的批次&lt;/b&gt;，位于第一个 Add &amp;amp; Norm（编码器第 1 层）：第 1 行“{a}”（{na} 个词元），第 2 行“{b}”（{nb} 个词元 + {pads} 个 &amp;lt;pad&amp;gt;）。&lt;span style='color:{red}'&gt;&lt;b&gt;BatchNorm&lt;/b&gt;&lt;/span&gt; 对每个特征在两行、所有位置上统计：计入填充后，某个特征的均值最多偏移 &lt;b&gt;{dmean:.3g}&lt;/b&gt;，标准差最多偏移 &lt;b&gt;{dstd:.3g}&lt;/b&gt;。&lt;span style='color:{blue}'&gt;&lt;b&gt;LayerNorm&lt;/b&gt;&lt;/span&gt; 对每个词元在其 {d} 个特征上统计：真实词元的均值和标准差在同批与单独运行时最多相差 &lt;b&gt;{dln:.1e}&lt;/b&gt;——填充毫无影响。</translation>
    </message>
    <message>
        <source>What-if active: these statistics come from the model with {what}.</source>
        <translation>假设实验进行中：这些统计量来自{what}的模型。</translation>
    </message>
    <message>
        <source>This model: LayerNorm after each sublayer (post-LN, as in the paper): LayerNorm(x + Sublayer(x)).</source>
        <translation>本模型：每个子层之后做 LayerNorm（后归一化，与论文相同）：LayerNorm(x + Sublayer(x))。</translation>
    </message>
    <message>
        <source>This model: LayerNorm in front of each sublayer (pre-LN): x + Sublayer(LayerNorm(x)). The residual stream x itself is not normalised inside the stack: its statistics (orange) may grow from layer to layer.</source>
        <translation>本模型：每个子层之前做 LayerNorm（前归一化）：x + Sublayer(LayerNorm(x))。残差流 x 本身在层内不被归一化：它的统计量（橙色）可能逐层增大。</translation>
    </message>
    <message>
        <source>This model: RMSNorm in front of each sublayer (pre-norm): x + Sublayer(RMSNorm(x)). RMSNorm divides each token by the root mean square of its features and multiplies by γ: no mean is subtracted and there is no β, so the output's mean is not pinned to 0 (no dashed references here).</source>
        <translation>本模型：每个子层之前做 RMSNorm（前归一化）：x + Sublayer(RMSNorm(x))。RMSNorm 把每个词元除以其特征的均方根再乘以 γ：不减去均值，也没有 β，因此输出的均值并不固定为 0（此处不画虚线参考）。</translation>
    </message>
    <message>
        <source>This model: RMSNorm after each sublayer: RMSNorm(x + Sublayer(x)); no mean is subtracted and there is no β.</source>
        <translation>本模型：每个子层之后做 RMSNorm：RMSNorm(x + Sublayer(x))；不减去均值，也没有 β。</translation>
    </message>
    <message>
        <source>● input x (the residual stream)</source>
        <translation>● 输入 x（残差流）</translation>
    </message>
    <message>
        <source>Before and after each norm</source>
        <translation>每个归一化的前与后</translation>
    </message>
    <message>
        <source>no positional encoding</source>
        <translation>去掉位置编码</translation>
    </message>
    <message>
        <source>no ÷√d_k</source>
        <comment>the name of a what-if</comment>
        <translation>去掉 ÷√d_k</translation>
    </message>
    <message>
        <source>no causal mask</source>
        <translation>去掉因果掩码</translation>
    </message>
    <message>
        <source>zeroed heads</source>
        <translation>屏蔽部分注意力头</translation>
    </message>
    <message>
        <source>pair i:</source>
        <translation>维度对 i：</translation>
    </message>
    <message>
        <source>What-if: remove positional encoding</source>
        <translation>假设：去掉位置编码</translation>
    </message>
    <message>
        <source>this model cannot be run without its positional encoding</source>
        <translation>此模型无法在去掉位置编码的情况下运行</translation>
    </message>
    <message>
        <source>swap source positions</source>
        <translation>交换源序列位置</translation>
    </message>
    <message>
        <source>PE: position (row) × dimension (column)</source>
        <translation>PE：位置（行）× 维度（列）</translation>
    </message>
    <message>
        <source>position in binary (bits)</source>
        <translation>位置的二进制（各位）</translation>
    </message>
    <message>
        <source>PE·PEᵀ: position × position</source>
        <translation>PE·PEᵀ：位置 × 位置</translation>
    </message>
    <message>
        <source>PE[:, 2i] (sin, solid) and PE[:, 2i+1] (cos, dashed) over position</source>
        <translation>PE[:, 2i]（sin，实线）与 PE[:, 2i+1]（cos，虚线）随位置的变化</translation>
    </message>
    <message>
        <source>PE[:, 2i] (solid) and PE[:, 2i+1] (dashed) over position</source>
        <translation>PE[:, 2i]（实线）与 PE[:, 2i+1]（虚线）随位置的变化</translation>
    </message>
    <message>
        <source>PE[:, i] (sin, solid) and PE[:, i + d/2] (cos, dashed) over position</source>
        <translation>PE[:, i]（sin，实线）与 PE[:, i + d/2]（cos，虚线）随位置的变化</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>dims {a}, {b}</source>
        <translation>第 {a}、{b} 维</translation>
    </message>
    <message>
        <source>Asking the model for its positional encoding…</source>
        <translation>正在向模型获取它的位置编码…</translation>
    </message>
    <message>
        <source>This model adds the fixed sinusoidal encoding (its &lt;code&gt;sinusoid&lt;/code&gt; buffer).</source>
        <translation>该模型加的是固定的正弦位置编码（即它的 &lt;code&gt;sinusoid&lt;/code&gt; 缓冲区）。</translation>
    </message>
    <message>
        <source>This model adds a fixed sinusoidal table, read from its weights, stored as all sines then all cosines: pair i is dims i and i + d/2, and each wavelength is measured from the table.</source>
        <translation>该模型加的是固定的正弦位置表（从其权重读出），先存全部正弦、再存全部余弦：第 i 对是维度 i 与 i + d/2，每个波长都从表中实测。</translation>
    </message>
    <message>
        <source>This model &lt;b&gt;learned&lt;/b&gt; its positional embedding: the table, the waves and PE·PEᵀ show what training made of it; no wavelength applies.</source>
        <translation>该模型的位置嵌入是&lt;b&gt;学习得到的&lt;/b&gt;：表格、波形和 PE·PEᵀ 显示训练的结果；这里没有波长可言。</translation>
    </message>
    <message>
        <source>This model adds &lt;b&gt;no&lt;/b&gt; positional encoding: the table is all zeros, and its encoder cannot tell one order of the source from another.</source>
        <translation>该模型&lt;b&gt;没有&lt;/b&gt;位置编码：表格全为零，编码器无法区分源序列的不同顺序。</translation>
    </message>
    <message>
        <source>Red frame: the source's {n} positions (0–{last}); orange row: position {t}, read by the decoder at the shown step.</source>
        <translation>红框：源序列的 {n} 个位置（0–{last}）；橙色行：当前步解码器读取的位置 {t}。</translation>
    </message>
    <message>
        <source>Red frame: the source's {n} positions (0–{last}).</source>
        <translation>红框：源序列的 {n} 个位置（0–{last}）。</translation>
    </message>
    <message>
        <source>PE·PEᵀ: every diagonal (fixed offset q − p) is constant: measured max deviation along a diagonal {dev:.2g} (values span {low:.3g} … {high:.3g}).</source>
        <translation>PE·PEᵀ：每条对角线（固定偏移 q − p）上的值都相同：实测沿对角线的最大偏差 {dev:.2g}（取值范围 {low:.3g} … {high:.3g}）。</translation>
    </message>
    <message>
        <source>PE·PEᵀ is &lt;b&gt;not&lt;/b&gt; constant along its diagonals (max deviation {dev:.3g}): a learned encoding does not promise that similarity depends only on the offset.</source>
        <translation>PE·PEᵀ 沿对角线&lt;b&gt;并不&lt;/b&gt;恒定（最大偏差 {dev:.3g}）：学习得到的编码并不保证相似度只取决于偏移。</translation>
    </message>
    <message>
        <source>PE·PEᵀ is all zeros.</source>
        <translation>PE·PEᵀ 全为零。</translation>
    </message>
    <message>
        <source>What-if active: the source is encoded again WITHOUT positional encoding, beside the model as trained (the generation above is unchanged).</source>
        <translation>假设生效中：源序列在&lt;b&gt;去掉&lt;/b&gt;位置编码后重新编码，与训练时的模型并排对比（上方的生成过程不受影响）。</translation>
    </message>
    <message>
        <source>With PE (as trained): max |A′ − P A Pᵀ| = {dev:.3g}</source>
        <translation>有位置编码（训练时）：max |A′ − P A Pᵀ| = {dev:.3g}</translation>
    </message>
    <message>
        <source>Without PE: max |A′ − P A Pᵀ| = {dev:.2g}</source>
        <translation>无位置编码：max |A′ − P A Pᵀ| = {dev:.2g}</translation>
    </message>
    <message>
        <source>order matters</source>
        <translation>顺序有影响</translation>
    </message>
    <message>
        <source>order-blind: only permuted</source>
        <translation>对顺序无感：只是置换</translation>
    </message>
    <message>
        <source>“{text}”</source>
        <translation>“{text}”</translation>
    </message>
    <message>
        <source>swapped {a}↔{b}</source>
        <translation>交换 {a}↔{b}</translation>
    </message>
    <message>
        <source>encoder self-attention · layer {layer} · {who}</source>
        <translation>编码器自注意力 · 第 {layer} 层 · {who}</translation>
    </message>
    <message>
        <source>head {h}</source>
        <translation>第 {h} 个头</translation>
    </message>
    <message>
        <source>the two swapped characters are the same: choose two that differ</source>
        <translation>交换的两个字符相同：请选两个不同的字符</translation>
    </message>
    <message>
        <source>running the encoder on both sources…</source>
        <translation>正在对两个源序列运行编码器…</translation>
    </message>
    <message>
        <source>P swaps source positions {a} and {b} (‘{ca}’ ↔ ‘{cb}’). Without positional encoding a token's vector is its embedding alone, and attention, Add &amp;amp; Norm and the feed-forward network treat every position alike, so the encoder cannot see order: the swapped source's attention is the original's with rows and columns {a} and {b} exchanged (dashed), A′ = P A Pᵀ. Over all layers and heads the max deviation is {on:.3g} with PE and {off:.2g} without.</source>
        <translation>P 交换源序列的位置 {a} 和 {b}（‘{ca}’ ↔ ‘{cb}’）。没有位置编码时，词元的向量只是它的嵌入；注意力、Add &amp;amp; Norm 和前馈网络对每个位置一视同仁，所以编码器看不到顺序：交换后源序列的注意力就是原注意力把第 {a}、{b} 行和列互换（虚线），A′ = P A Pᵀ。在所有层和头上，最大偏差有位置编码时为 {on:.3g}，无位置编码时为 {off:.2g}。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Watch attention being learned.&lt;/b&gt; A Transformer trains on whole sentences at once: the decoder reads the target shifted right (teacher forcing) and the causal mask stands in for “not yet generated”, so every position learns in the same step. Press &lt;b&gt;Train&lt;/b&gt;: a model trains in a process of its own (the window stays free) and every few steps a snapshot is taken. The &lt;b&gt;probe&lt;/b&gt; is run on each snapshot: watch its cross-attention turn from noise into the anti-diagonal of &lt;tt&gt;reverse:&lt;/tt&gt; (each output character reads the source from the end) while the loss falls. The slider replays any snapshot; &lt;b&gt;Open in main view&lt;/b&gt; points every view of the app at it.</source>
        <translation>&lt;b&gt;看着注意力被学会。&lt;/b&gt;Transformer 一次训练整句：解码器读入右移一位的目标（教师强制），因果掩码代替“尚未生成”，所以每个位置在同一步里一起学习。按&lt;b&gt;训练&lt;/b&gt;：模型在独立的进程中训练（窗口保持流畅），每隔几步保存一个快照。&lt;b&gt;探针&lt;/b&gt;输入在每个快照上运行：看它的交叉注意力如何随着损失下降从噪声变成 &lt;tt&gt;reverse:&lt;/tt&gt; 的反对角线（每个输出字符从末尾读源句）。滑块可回放任一快照；&lt;b&gt;在主视图中打开&lt;/b&gt;让应用的所有视图都指向它。</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Transformer</source>
        <translation>Transformer</translation>
    </message>
    <message>
        <source>RNN with additive attention</source>
        <translation>带加性注意力的 RNN</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>规模：</translation>
    </message>
    <message>
        <source>tiny</source>
        <translation>微型</translation>
    </message>
    <message>
        <source>small</source>
        <translation>小型</translation>
    </message>
    <message>
        <source>the shipped recipe</source>
        <translation>随附模型的配方</translation>
    </message>
    <message>
        <source>Data:</source>
        <translation>数据：</translation>
    </message>
    <message>
        <source>reverse: 3–10 characters</source>
        <translation>reverse：3–10 个字符</translation>
    </message>
    <message>
        <source>reverse: 1–48 characters</source>
        <translation>reverse：1–48 个字符</translation>
    </message>
    <message>
        <source>sort:</source>
        <translation>sort：</translation>
    </message>
    <message>
        <source>all four shipped tasks</source>
        <translation>全部四个随附任务</translation>
    </message>
    <message>
        <source>your pairs file…</source>
        <translation>你的句对文件…</translation>
    </message>
    <message>
        <source>pairs: {name}</source>
        <translation>句对：{name}</translation>
    </message>
    <message>
        <source>Steps:</source>
        <translation>步数：</translation>
    </message>
    <message>
        <source>Snapshot every:</source>
        <translation>快照间隔：</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Open replay…</source>
        <translation>打开回放…</translation>
    </message>
    <message>
        <source>Save snapshot as checkpoint…</source>
        <translation>将快照另存为检查点…</translation>
    </message>
    <message>
        <source>Save replay…</source>
        <translation>保存回放…</translation>
    </message>
    <message>
        <source>Open in main view</source>
        <translation>在主视图中打开</translation>
    </message>
    <message>
        <source>Compare with…</source>
        <translation>与…比较</translation>
    </message>
    <message>
        <source>the shipped model</source>
        <translation>随附模型</translation>
    </message>
    <message>
        <source>the snapshot at step {step}</source>
        <translation>第 {step} 步的快照</translation>
    </message>
    <message>
        <source>Probe:</source>
        <translation>探针：</translation>
    </message>
    <message>
        <source>Attention:</source>
        <translation>注意力：</translation>
    </message>
    <message>
        <source>Follow the newest</source>
        <translation>跟随最新快照</translation>
    </message>
    <message>
        <source>Press Play to watch attention form.</source>
        <translation>按“播放”观看注意力的形成。</translation>
    </message>
    <message>
        <source>Snapshot {index} of {count}: step {step}</source>
        <translation>快照 {index} / {count}：第 {step} 步</translation>
    </message>
    <message>
        <source>No snapshot yet</source>
        <translation>还没有快照</translation>
    </message>
    <message>
        <source>Choose a size and the data, then press Train (Ctrl+Enter).</source>
        <translation>选择规模和数据，然后按“训练”（Ctrl+Enter）。</translation>
    </message>
    <message>
        <source>Starting the training process …</source>
        <translation>正在启动训练进程 …</translation>
    </message>
    <message>
        <source>Step {step} of {steps} · {rate:.1f} steps/s · {seconds:.0f} s · loss {loss:.3f}</source>
        <translation>第 {step} / {steps} 步 · 每秒 {rate:.1f} 步 · {seconds:.0f} 秒 · 损失 {loss:.3f}</translation>
    </message>
    <message>
        <source>Paused at step {step} of {steps}.</source>
        <translation>已暂停于第 {step} / {steps} 步。</translation>
    </message>
    <message>
        <source>Stopping: the model trained so far is saved …</source>
        <translation>正在停止：保存目前训练的模型 …</translation>
    </message>
    <message>
        <source>Trained {step} steps in {seconds:.0f} s; held-out exact match {held:.0%}.</source>
        <translation>用 {seconds:.0f} 秒训练了 {step} 步；留出集完全匹配 {held:.0%}。</translation>
    </message>
    <message>
        <source>Stopped at step {step} of {steps} after {seconds:.0f} s.</source>
        <translation>在第 {step} / {steps} 步停止，用时 {seconds:.0f} 秒。</translation>
    </message>
    <message>
        <source>Replay {name}: {count} snapshots, steps {first}–{last}.</source>
        <translation>回放 {name}：{count} 个快照，第 {first}–{last} 步。</translation>
    </message>
    <message>
        <source>The training run failed: {message}</source>
        <translation>训练失败：{message}</translation>
    </message>
    <message>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>Exact match</source>
        <translation>完全匹配</translation>
    </message>
    <message>
        <source>training batch</source>
        <translation>训练批次</translation>
    </message>
    <message>
        <source>held-out</source>
        <translation>留出集</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Output of the snapshot at step {step}: {output}</source>
        <translation>第 {step} 步快照的输出：{output}</translation>
    </message>
    <message>
        <source>{output} … (no &lt;eos&gt; within {length} tokens)</source>
        <translation>{output} …（{length} 个词元内没有 &lt;eos&gt;）</translation>
    </message>
    <message>
        <source>Running the probe on step {step} …</source>
        <translation>正在第 {step} 步上运行探针 …</translation>
    </message>
    <message>
        <source>The probe could not be run: {message}</source>
        <translation>无法运行探针：{message}</translation>
    </message>
    <message>
        <source>{kind} L{layer} H{head}</source>
        <translation>{kind} 第 {layer} 层 第 {head} 头</translation>
    </message>
    <message>
        <source>A run is going: stop it first.</source>
        <translation>正在训练：请先停止。</translation>
    </message>
    <message>
        <source>Saved {path}.</source>
        <translation>已保存 {path}。</translation>
    </message>
    <message>
        <source>A UTF-8 file of source&lt;TAB&gt;target lines</source>
        <translation>每行“源文本&lt;TAB&gt;目标文本”的 UTF-8 文件</translation>
    </message>
    <message>
        <source>&lt;b&gt;Why attention?&lt;/b&gt; An RNN encoder-decoder without attention (Cho et al. 2014) folds the whole source into &lt;b&gt;one fixed vector&lt;/b&gt;, the encoder's final state, and the decoder must write every output token from it: the longer the source, the more it forgets. Attention (Bahdanau et al. 2014) lets every decoder step build &lt;b&gt;a fresh weighted sum&lt;/b&gt; of all encoder states, c&lt;sub&gt;i&lt;/sub&gt; = Σ&lt;sub&gt;j&lt;/sub&gt; α&lt;sub&gt;ij&lt;/sub&gt; h&lt;sub&gt;j&lt;/sub&gt;, with α&lt;sub&gt;i&lt;/sub&gt; = softmax&lt;sub&gt;j&lt;/sub&gt;(e&lt;sub&gt;ij&lt;/sub&gt;). Only the score e&lt;sub&gt;ij&lt;/sub&gt; differs: &lt;b&gt;additive&lt;/b&gt; vᵀ tanh(W s&lt;sub&gt;i−1&lt;/sub&gt; + U h&lt;sub&gt;j&lt;/sub&gt;) (Bahdanau), &lt;b&gt;dot-product&lt;/b&gt; s&lt;sub&gt;i−1&lt;/sub&gt; · h&lt;sub&gt;j&lt;/sub&gt; (Luong et al. 2015), &lt;b&gt;scaled dot-product&lt;/b&gt; s · h / √d, which the Transformer computes between learned projections, Q Kᵀ / √d&lt;sub&gt;k&lt;/sub&gt;, in every head. The curves below are the shipped models on &lt;tt&gt;reverse:&lt;/tt&gt;, measured for every input length (as Bahdanau et al.'s Figure 2 measured BLEU against sentence length).</source>
        <translation>&lt;b&gt;为什么需要注意力？&lt;/b&gt;没有注意力的 RNN 编码器-解码器（Cho 等，2014）把整个输入压缩成&lt;b&gt;一个固定向量&lt;/b&gt;，即编码器的最终状态，解码器必须仅凭它写出每一个输出词元：输入越长，忘得越多。注意力（Bahdanau 等，2014）让解码器每一步都重新计算所有编码器状态的&lt;b&gt;加权和&lt;/b&gt;，c&lt;sub&gt;i&lt;/sub&gt; = Σ&lt;sub&gt;j&lt;/sub&gt; α&lt;sub&gt;ij&lt;/sub&gt; h&lt;sub&gt;j&lt;/sub&gt;，其中 α&lt;sub&gt;i&lt;/sub&gt; = softmax&lt;sub&gt;j&lt;/sub&gt;(e&lt;sub&gt;ij&lt;/sub&gt;)。不同之处只在打分 e&lt;sub&gt;ij&lt;/sub&gt;：&lt;b&gt;加性&lt;/b&gt; vᵀ tanh(W s&lt;sub&gt;i−1&lt;/sub&gt; + U h&lt;sub&gt;j&lt;/sub&gt;)（Bahdanau），&lt;b&gt;点积&lt;/b&gt; s&lt;sub&gt;i−1&lt;/sub&gt; · h&lt;sub&gt;j&lt;/sub&gt;（Luong 等，2015），&lt;b&gt;缩放点积&lt;/b&gt; s · h / √d——Transformer 的每个头都在学到的投影之间计算它：Q Kᵀ / √d&lt;sub&gt;k&lt;/sub&gt;。下面的曲线是随附模型在 &lt;tt&gt;reverse:&lt;/tt&gt; 上按每个输入长度测得的准确率（正如 Bahdanau 等人的图 2 按句子长度测量 BLEU）。</translation>
    </message>
    <message>
        <source>exact match on reverse: by input length (95 % intervals shaded)</source>
        <translation>reverse: 按输入长度的完全匹配率（阴影为 95% 区间）</translation>
    </message>
    <message>
        <source>input length (characters)</source>
        <translation>输入长度（字符）</translation>
    </message>
    <message>
        <source>this source: {n}</source>
        <translation>当前输入：{n}</translation>
    </message>
    <message>
        <source>No accuracy-by-length curves were found in {folder}. Measure one with &lt;tt&gt;attnviz eval --checkpoint PATH --by-length --json {folder}/NAME.json&lt;/tt&gt;.</source>
        <translation>在 {folder} 中没有找到按长度的准确率曲线。可用 &lt;tt&gt;attnviz eval --checkpoint PATH --by-length --json {folder}/NAME.json&lt;/tt&gt; 测量。</translation>
    </message>
    <message>
        <source>At input length {n}: {values}.</source>
        <translation>输入长度为 {n} 时：{values}。</translation>
    </message>
    <message>
        <source>The curves measure reverse: and sort: inputs of 1–48 characters; this source is {n} characters long.</source>
        <translation>曲线测量的是 1–48 个字符的 reverse: 与 sort: 输入；当前输入长 {n} 个字符。</translation>
    </message>
    <message>
        <source>What-if on the attention weights:</source>
        <translation>注意力权重的假设实验：</translation>
    </message>
    <message>
        <source>as trained</source>
        <translation>按训练结果</translation>
    </message>
    <message>
        <source>uniform: α = 1/S</source>
        <translation>均匀：α = 1/S</translation>
    </message>
    <message>
        <source>all on one source position</source>
        <translation>全部集中在一个输入位置</translation>
    </message>
    <message>
        <source>none: the context is zero</source>
        <translation>无：上下文为零</translation>
    </message>
    <message>
        <source>WHAT-IF: the decoder uses {what} at every step (the model's own weights are replaced)</source>
        <translation>假设实验：解码器每一步都使用{what}（模型自己的权重被替换）</translation>
    </message>
    <message>
        <source>The what-ifs replace the attention weights of an RNN with attention; {model} has none to replace. Open one with the buttons below.</source>
        <translation>这些假设实验替换带注意力的 RNN 的注意力权重；{model} 没有可替换的权重。可用下面的按钮打开一个。</translation>
    </message>
    <message>
        <source>Open:</source>
        <translation>打开：</translation>
    </message>
    <message>
        <source>Compare with the Transformer</source>
        <translation>与 Transformer 对比</translation>
    </message>
    <message>
        <source>Compare with the RNN with attention</source>
        <translation>与带注意力的 RNN 对比</translation>
    </message>
    <message>
        <source>Step both models on the same source, side by side: the RNN's alignment beside the Transformer's cross-attention (the Compare page).</source>
        <translation>在同一个输入上并排逐步运行两个模型：RNN 的对齐矩阵与 Transformer 的交叉注意力并列（对比页）。</translation>
    </message>
    <message>
        <source>{name} is not in this installation</source>
        <translation>此安装中没有 {name}</translation>
    </message>
    <message>
        <source>RNN, no attention</source>
        <translation>RNN，无注意力</translation>
    </message>
    <message>
        <source>RNN, additive attention</source>
        <translation>RNN，加性注意力</translation>
    </message>
    <message>
        <source>RNN, scaled dot-product</source>
        <translation>RNN，缩放点积</translation>
    </message>
    <message>
        <source>no task prefix: this model was trained on sources that start with {tasks}</source>
        <translation>没有任务前缀：这个模型训练时的输入都以 {tasks} 开头</translation>
    </message>
    <message>
        <source>“{task}:” is not a task this model was trained on ({tasks})</source>
        <translation>“{task}:” 不是这个模型训练过的任务（{tasks}）</translation>
    </message>
    <message>
        <source>{characters} never appeared in {task}: training</source>
        <translation>{characters} 在 {task}: 的训练数据里从未出现过</translation>
    </message>
    <message>
        <source>{characters} not in the vocabulary: the model writes &lt;unk&gt; in their place, and each is copied from the source position cross-attention points at (violet in the output)</source>
        <translation>{characters} 不在词表中：模型在它们的位置写 &lt;unk&gt;，每个字符再从交叉注意力所指的源位置复制过来（输出中以紫色标出）</translation>
    </message>
    <message>
        <source>sort: cannot know where an unknown character belongs ({characters} has no place in the vocabulary's order): a copied character stands where the model wrote &lt;unk&gt;</source>
        <translation>sort: 无法知道未知字符该排在哪里（{characters} 在词表的顺序里没有位置）：复制来的字符放在模型写 &lt;unk&gt; 的地方</translation>
    </message>
    <message>
        <source>{character} copied by attention from source position {position} (the model wrote &lt;unk&gt;): {kind}, layer {layer}, head {head} put {weight} there, the layer's mean {mean}</source>
        <translation>{character} 由注意力从源位置 {position} 复制而来（模型写的是 &lt;unk&gt;）：{kind}第 {layer} 层第 {head} 个头在那里的权重为 {weight}，该层平均 {mean}</translation>
    </message>
    <message>
        <source>{longest} characters is the longest {task}: input this model was trained on (this one has {length})</source>
        <translation>这个模型训练时 {task}: 的输入最长 {longest} 个字符（这里有 {length} 个）</translation>
    </message>
    <message>
        <source>an empty {task}: input was never seen in training</source>
        <translation>训练时从未见过空的 {task}: 输入</translation>
    </message>
    <message>
        <source>not a valid date between {first} and {last} in any of the {forms} forms this model was trained on</source>
        <translation>不是 {first} 到 {last} 年之间、按训练过的 {forms} 种写法之一写出的合法日期</translation>
    </message>
    <message>
        <source>“{category}” is not one of the pick: categories it was trained on ({categories})</source>
        <translation>“{category}” 不是训练过的 pick: 类别（{categories}）</translation>
    </message>
    <message>
        <source>About this model</source>
        <translation>关于这个模型</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>还没有加载模型。</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name}&lt;/b&gt;: {family}, {parameters:,} parameters, on {device}</source>
        <translation>&lt;b&gt;{name}&lt;/b&gt;：{family}，{parameters:,} 个参数，运行在 {device}</translation>
    </message>
    <message>
        <source>Configuration: {config}</source>
        <translation>配置：{config}</translation>
    </message>
    <message>
        <source>Trained with the &lt;b&gt;{recipe}&lt;/b&gt; recipe: {steps:,} steps in {minutes:.0f} minutes.</source>
        <translation>用 &lt;b&gt;{recipe}&lt;/b&gt; 配方训练：{steps:,} 步，{minutes:.0f} 分钟。</translation>
    </message>
    <message>
        <source> It started from the weights of {name} ({steps:,} steps of &lt;b&gt;{recipe}&lt;/b&gt;, {minutes:.0f} minutes).</source>
        <translation>它从 {name} 的权重开始（&lt;b&gt;{recipe}&lt;/b&gt; 配方 {steps:,} 步，{minutes:.0f} 分钟）。</translation>
    </message>
    <message>
        <source>Tasks it was trained on: {tasks}</source>
        <translation>训练过的任务：{tasks}</translation>
    </message>
    <message>
        <source>reverse: and sort: inputs: 1 to {longest} of {count} characters (printable ASCII and common Chinese)</source>
        <translation>reverse: 与 sort: 的输入：由 {count} 个字符（可打印 ASCII 与常用汉字）组成，长 1 到 {longest} 个字符</translation>
    </message>
    <message>
        <source>Dates: {forms} written forms, years {first}–{last}</source>
        <translation>日期：{forms} 种写法，{first}–{last} 年</translation>
    </message>
    <message>
        <source>pick: categories: {categories}</source>
        <translation>pick: 的类别：{categories}</translation>
    </message>
    <message>
        <source>Held-out exact match recorded at the end of training: {rows}</source>
        <translation>训练结束时在留出数据上的完全匹配率：{rows}</translation>
    </message>
    <message>
        <source>Its file says nothing about what it was trained on, so the window cannot warn when a source lies outside it.</source>
        <translation>它的文件没有说明训练数据，所以当输入超出训练范围时窗口无法提醒。</translation>
    </message>
    <message>
        <source>Nothing generated yet: shown is &lt;b&gt;{shown}&lt;/b&gt;, computed when the model read the source. </source>
        <translation>还没有生成词元：这里显示的是模型读入输入时算好的&lt;b&gt;{shown}&lt;/b&gt;。</translation>
    </message>
    <message>
        <source>&lt;b&gt;→&lt;/b&gt; one token · &lt;b&gt;Space&lt;/b&gt; play · &lt;b&gt;End&lt;/b&gt; run to the end</source>
        <translation>&lt;b&gt;→&lt;/b&gt; 生成一个词元 · &lt;b&gt;空格&lt;/b&gt; 播放 · &lt;b&gt;End&lt;/b&gt; 运行到结束</translation>
    </message>
    <message>
        <source>click a head to enlarge it · hover a cell to read its weight</source>
        <translation>点击一个头可放大 · 悬停在格子上可读出权重</translation>
    </message>
    <message>
        <source> · &lt;b&gt;M&lt;/b&gt; the mean of the heads</source>
        <translation> · &lt;b&gt;M&lt;/b&gt; 各头平均</translation>
    </message>
    <message>
        <source> · &lt;b&gt;1&lt;/b&gt; … &lt;b&gt;{n}&lt;/b&gt; the kinds of attention</source>
        <translation> · &lt;b&gt;1&lt;/b&gt; … &lt;b&gt;{n}&lt;/b&gt; 切换注意力类型</translation>
    </message>
    <message>
        <source>&lt;b&gt;→&lt;/b&gt; one token · &lt;b&gt;←&lt;/b&gt; back · &lt;b&gt;End&lt;/b&gt; run to the end</source>
        <translation>&lt;b&gt;→&lt;/b&gt; 生成一个词元 · &lt;b&gt;←&lt;/b&gt; 后退 · &lt;b&gt;End&lt;/b&gt; 运行到结束</translation>
    </message>
    <message>
        <source> · &lt;b&gt;words&lt;/b&gt;: pieces merged, keys summed, queries averaged (&lt;b&gt;W&lt;/b&gt;)</source>
        <translation> · &lt;b&gt;按词显示&lt;/b&gt;：子词已合并，键求和、查询取平均（&lt;b&gt;W&lt;/b&gt;）</translation>
    </message>
    <message>
        <source>encoder (bidirectional): bias against key − query</source>
        <translation>编码器（双向）：偏置随 键 − 查询 的变化</translation>
    </message>
    <message>
        <source>decoder (causal): bias against key − query</source>
        <translation>解码器（因果）：偏置随 键 − 查询 的变化</translation>
    </message>
    <message>
        <source>key position − query position</source>
        <translation>键位置 − 查询位置</translation>
    </message>
    <message>
        <source>bias added to the score</source>
        <translation>加到分数上的偏置</translation>
    </message>
    <message>
        <source>added to the encoder's scores for this source · {head}</source>
        <translation>对当前输入加到编码器分数上的偏置 · {head}</translation>
    </message>
    <message>
        <source>{buckets} buckets, learned per head in the first layer and added in every layer. Exact for small distances, log-spaced up to {max_distance}, one bucket beyond (blue lines: bucket edges). Orange: {head}; grey: the other heads.</source>
        <translation>共 {buckets} 个桶，每个头在第一层学习、在每一层都加上。距离小时每个距离一个桶，到 {max_distance} 为止按对数间隔，更远的共用一个桶（蓝线：桶的边界）。橙色：{head}；灰色：其他头。</translation>
    </message>
    <message>
        <source>head {n}</source>
        <comment>ordinal: the nth head</comment>
        <translation>第 {n} 个头</translation>
    </message>
    <message>
        <source>The decoding strategy is &lt;b&gt;{strategy}&lt;/b&gt;: it follows one hypothesis, so there is no tree to draw. Beam search keeps several hypotheses at once.</source>
        <translation>当前解码策略是&lt;b&gt;{strategy}&lt;/b&gt;：它只沿一个假设前进，没有树可画。束搜索同时保留多个假设。</translation>
    </message>
    <message>
        <source>Switch to beam search</source>
        <translation>切换到束搜索</translation>
    </message>
    <message>
        <source>sampling (temperature)</source>
        <comment>beam tree: the strategy in use</comment>
        <translation>温度采样</translation>
    </message>
    <message>
        <source>Take a step (→): beam search runs at the first step, and its tree grows here as you step.</source>
        <translation>按一步（→）：束搜索在第一步运行，它的树会随着逐步前进在这里展开。</translation>
    </message>
    <message>
        <source>&lt;span style='color:#7fa7d9'&gt;■&lt;/span&gt; in the beam &amp;nbsp; &lt;span style='color:#5bd17a'&gt;■&lt;/span&gt; finished (&amp;lt;eos&amp;gt;) &amp;nbsp; &lt;span style='color:#8a8a8a'&gt;■&lt;/span&gt; pruned &amp;nbsp; &lt;span style='color:#ffb300'&gt;━&lt;/span&gt; best hypothesis &amp;nbsp; &lt;span style='color:#4fc3f7'&gt;▢&lt;/span&gt; shown below &amp;nbsp;·&amp;nbsp; click a box to see its attention</source>
        <translation>&lt;span style='color:#7fa7d9'&gt;■&lt;/span&gt; 在束中 &amp;nbsp; &lt;span style='color:#5bd17a'&gt;■&lt;/span&gt; 已完成（&amp;lt;eos&amp;gt;）&amp;nbsp; &lt;span style='color:#8a8a8a'&gt;■&lt;/span&gt; 已剪枝 &amp;nbsp; &lt;span style='color:#ffb300'&gt;━&lt;/span&gt; 最佳假设 &amp;nbsp; &lt;span style='color:#4fc3f7'&gt;▢&lt;/span&gt; 下方显示的假设 &amp;nbsp;·&amp;nbsp; 点击方框查看它的注意力</translation>
    </message>
    <message>
        <source>Show later steps (faint)</source>
        <translation>显示之后的步（淡化）</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>start</source>
        <translation>起点</translation>
    </message>
    <message>
        <source>in the beam</source>
        <translation>在束中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>pruned</source>
        <translation>已剪枝</translation>
    </message>
    <message>
        <source>“{text}” · log p = {score} · {status} · layer {layer} · {head}</source>
        <translation>“{text}” · 对数概率 {score} · {status} · 第 {layer} 层 · {head}</translation>
    </message>
    <message>
        <source>The start ({start}): no token written yet. Click a later box.</source>
        <translation>起点（{start}）：还没有写出词元。请点击后面的方框。</translation>
    </message>
    <message>
        <source>computing the attention of “{text}”…</source>
        <translation>正在计算“{text}”的注意力…</translation>
    </message>
    <message>
        <source>token written</source>
        <translation>写出的词元</translation>
    </message>
    <message>
        <source>source</source>
        <translation>源文本</translation>
    </message>
    <message>
        <source>QKᵀ&lt;br&gt;(raw scores)</source>
        <translation>QKᵀ&lt;br&gt;（原始分数）</translation>
    </message>
    <message>
        <source>÷ √d_k&lt;br&gt;(scaled)</source>
        <translation>÷ √d_k&lt;br&gt;（缩放后）</translation>
    </message>
    <message>
        <source>mask&lt;br&gt;(dark = blocked)</source>
        <translation>掩码&lt;br&gt;（深色 = 屏蔽）</translation>
    </message>
    <message>
        <source>masked scores&lt;br&gt;(−∞ in black)</source>
        <translation>掩码后分数&lt;br&gt;（黑色为 −∞）</translation>
    </message>
    <message>
        <source>softmax&lt;br&gt;(weights)</source>
        <translation>softmax&lt;br&gt;（权重）</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>&lt;b&gt;Why divide by √d_k?&lt;/b&gt; A dot product of two d_k-dimensional vectors with unit-variance components has variance d_k, so for large d_k the scores grow large, the softmax saturates on one key and its gradients vanish. Dividing by √d_k keeps the scores near unit variance. Left: the selected head as trained; right: the same weights with the scaling removed everywhere (a what-if). Below: the attention entropy of every head in both runs; lower entropy means sharper, more saturated attention.</source>
        <translation>&lt;b&gt;为什么要除以 √d_k？&lt;/b&gt;两个 d_k 维、各分量方差为 1 的向量的点积方差为 d_k，d_k 大时分数随之变大，softmax 会集中到一个键上而梯度消失。除以 √d_k 使分数的方差保持在 1 左右。左：训练时的所选注意力头；右：同一组权重但处处去掉缩放（假设实验）。下方：两次运行中每个头的注意力熵；熵越低，注意力越尖锐、越饱和。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Relative position bias (T5).&lt;/b&gt; T5 adds no position vector to its tokens. Instead each head learns one number for every &lt;i&gt;bucket&lt;/i&gt; of relative distance between query and key, and adds it to the score Q·Kᵀ before the softmax (T5 does not divide by √d_k). What a head prefers, the word just before, the next one, or anything far away, reads off its curve. The buckets are exact for near tokens and ever wider for far ones, so the model tells “2 apart” from “3 apart” but not 90 from 100.</source>
        <translation>&lt;b&gt;相对位置偏置（T5）。&lt;/b&gt;T5 不给词元加位置向量，而是让每个头为查询与键之间相对距离的每个&lt;i&gt;桶&lt;/i&gt;学习一个数，在 softmax 之前加到分数 Q·Kᵀ 上（T5 不除以 √d_k）。一个头偏好什么——前一个词、后一个词，还是很远的词——从它的曲线上就能读出。近处的距离每个单独一个桶，远处的桶越来越宽，所以模型分得清相隔 2 和 3，却分不清相隔 90 和 100。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Layer normalisation.&lt;/b&gt; After every sublayer the Transformer adds the sublayer's output to its input (the residual connection) and normalises the sum: &lt;i&gt;LayerNorm(x + Sublayer(x))&lt;/i&gt;, the paper's “Add &amp;amp; Norm”. LayerNorm looks at &lt;b&gt;one token at a time&lt;/b&gt;: it subtracts the mean of that token's d_model features, divides by their standard deviation, then applies a learned scale γ and shift β. Whatever goes in, every token comes out with about the same mean (β's average) and spread (about γ's size), which keeps deep stacks trainable. The first tab shows each token's mean and std before and after every Add &amp;amp; Norm of the selected layer. The second asks: why not BatchNorm? It averages each feature over the whole batch, so the &amp;lt;pad&amp;gt; filling a shorter sentence leaks into everyone's statistics; LayerNorm's do not change.</source>
        <translation>&lt;b&gt;层归一化（LayerNorm）。&lt;/b&gt;Transformer 在每个子层之后，把子层的输出加回它的输入（残差连接），再对和做归一化：&lt;i&gt;LayerNorm(x + Sublayer(x))&lt;/i&gt;，即论文中的“Add &amp;amp; Norm”。LayerNorm &lt;b&gt;每次只看一个词元&lt;/b&gt;：减去该词元 d_model 个特征的均值，除以它们的标准差，再乘以可学习的缩放 γ、加上平移 β。因此无论输入如何，每个词元输出的均值都约为 β 的平均值，离散程度约为 γ 的大小，这让很深的网络也能稳定训练。第一个标签页显示所选层每个 Add &amp;amp; Norm 前后各词元的均值与标准差。第二个标签页回答：为什么不用 BatchNorm？它对每个特征在整个批次上求平均，较短句子补上的 &amp;lt;pad&amp;gt; 会混进所有词元的统计量；LayerNorm 的统计量则不受影响。</translation>
    </message>
    <message>
        <source>Attention compares tokens by content alone: shuffle the words and every score is the same, only moved. So the paper &lt;b&gt;adds&lt;/b&gt; to each token's embedding a vector that depends on its position: PE[p, 2i] = sin(p / 10000&lt;sup&gt;2i/d&lt;/sup&gt;), PE[p, 2i+1] = cos(…). Each pair of dimensions is a wave, fast in the first dimensions and slower further on, much as the low bits of a binary counter flip fast and the high bits slowly. Because sin/cos of p + k is a rotation of sin/cos of p, PE·PEᵀ depends only on the offset k: the model can attend by relative position. Below: this model's own table, chosen pairs as waves, the binary code, PE·PEᵀ.</source>
        <translation>注意力只按内容比较词元：把词打乱，每个分数都不变，只是换了位置。所以论文给每个词元的嵌入&lt;b&gt;加上&lt;/b&gt;一个取决于其位置的向量：PE[p, 2i] = sin(p / 10000&lt;sup&gt;2i/d&lt;/sup&gt;)，PE[p, 2i+1] = cos(…)。每一对维度是一条波：前面的维度变化快，越往后越慢，就像二进制计数器的低位翻转得快、高位翻转得慢。由于 p + k 处的 sin/cos 是 p 处的旋转，PE·PEᵀ 只取决于偏移 k：模型可以按相对位置关注。下图：本模型自己的编码表、选定维度对的波形、二进制编码和 PE·PEᵀ。</translation>
    </message>
    <message>
        <source>&lt;b&gt;From a distribution to a token.&lt;/b&gt; Each decoder step ends in a softmax over the whole vocabulary: a probability for every possible next character. Something must still pick one. &lt;i&gt;Greedy&lt;/i&gt; decoding takes the most likely; &lt;i&gt;sampling&lt;/i&gt; draws at random after dividing the logits by the &lt;i&gt;temperature&lt;/i&gt; T (T &amp;lt; 1 sharpens, T &amp;gt; 1 flattens); &lt;i&gt;top-k&lt;/i&gt; keeps only the k most likely tokens and &lt;i&gt;top-p&lt;/i&gt; (nucleus) the smallest set whose probability reaches p, then renormalises. The &lt;i&gt;entropy&lt;/i&gt; says how unsure the model is. Below, for the shown step: &lt;span style='color:#6f8fd8'&gt;blue&lt;/span&gt;, the model's probabilities (top 30, then the rest together); &lt;span style='color:#ffb300'&gt;amber&lt;/span&gt;, the distribution after the settings, recomputed as you change them; grey, the tokens they cut off.</source>
        <translation>&lt;b&gt;从概率分布到一个词元。&lt;/b&gt;解码器每一步最后都是对整个词表做 softmax：给每个可能的下一个字符一个概率。但总得有办法从中挑出一个。&lt;i&gt;贪心&lt;/i&gt;解码取概率最大的；&lt;i&gt;采样&lt;/i&gt;先把 logits 除以&lt;i&gt;温度&lt;/i&gt; T（T &amp;lt; 1 使分布更尖，T &amp;gt; 1 使它更平）再随机抽取；&lt;i&gt;top-k&lt;/i&gt; 只保留概率最大的 k 个词元，&lt;i&gt;top-p&lt;/i&gt;（核采样）保留累计概率达到 p 的最少词元，然后重新归一化。&lt;i&gt;熵&lt;/i&gt;衡量模型有多不确定。下图是当前这一步：&lt;span style='color:#6f8fd8'&gt;蓝色&lt;/span&gt;是模型的概率（前 30 个，其余合为一根）；&lt;span style='color:#ffb300'&gt;琥珀色&lt;/span&gt;是按解码设置处理后的分布，改设置时立即重算；灰色是被设置截掉的词元。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Beam search&lt;/b&gt; keeps the &lt;i&gt;k&lt;/i&gt; most probable partial outputs (hypotheses), not just the single most likely token. Each step extends every hypothesis by every token, ranks all the extensions by summed log-probability, keeps the best &lt;i&gt;k&lt;/i&gt; and prunes the rest. A hypothesis that writes &amp;lt;eos&amp;gt; is finished; the search stops when no open one can still beat the best finished one. (The paper used a beam of 4 and a length penalty; this model ranks by the plain sum.)&lt;br&gt;Columns are output steps; each box is a token and the cumulative log-probability of its hypothesis; gold is the output. Click a box to see that hypothesis's cross-attention.</source>
        <translation>&lt;b&gt;束搜索&lt;/b&gt;不只取最可能的一个词元，而是同时保留概率最高的 &lt;i&gt;k&lt;/i&gt; 个部分输出（假设）。每一步用所有词元扩展每个假设，按累积对数概率给全部扩展排序，留下前 &lt;i&gt;k&lt;/i&gt; 个，其余剪枝。写出 &amp;lt;eos&amp;gt; 的假设即告完成；当没有未完成的假设还能超过最好的已完成假设时，搜索停止。（论文用束宽 4 并加长度惩罚；这个模型直接按对数概率之和排序。）&lt;br&gt;每一列是一个输出步；每个方框是一个词元及其假设的累积对数概率；金色路径就是输出。点击方框，可查看该假设对源文本的交叉注意力。</translation>
    </message>
    <message>
        <source>Masks</source>
        <translation>掩码</translation>
    </message>
    <message>
        <source>Positional encoding</source>
        <translation>位置编码</translation>
    </message>
    <message>
        <source>Relative bias</source>
        <translation>相对位置偏置</translation>
    </message>
    <message>
        <source>Why ÷√dₖ</source>
        <translation>为何除以 √dₖ</translation>
    </message>
    <message>
        <source>LayerNorm</source>
        <translation>层归一化</translation>
    </message>
    <message>
        <source>Decoding</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>Beam search</source>
        <translation>束搜索</translation>
    </message>
    <message>
        <source>Why attention</source>
        <translation>为何需要注意力</translation>
    </message>
    <message>
        <source>Attribution</source>
        <translation>归因</translation>
    </message>
    <message>
        <source>Head importance</source>
        <translation>头的重要性</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>逻辑透镜</translation>
    </message>
    <message>
        <source>step {step} of {count}</source>
        <translation>第 {step} / {count} 步</translation>
    </message>
    <message>
        <source>(step {step} of {count})</source>
        <translation>(第 {step} 步，共 {count} 步)</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>屏蔽</translation>
    </message>
    <message>
        <source>open</source>
        <translation>通过</translation>
    </message>
    <message>
        <source>the mean of the heads</source>
        <translation>各头平均</translation>
    </message>
    <message>
        <source>layer {layer}, {head}</source>
        <translation>第 {layer} 层，{head}</translation>
    </message>
    <message>
        <source>layer {layer} raw scores QKᵀ: std {std:.2f}; divided by √d_k = {sqrt_dk:.2f}: std {scaled:.2f}. Mean entropy over heads {with_scaling:.3f} nats with the scaling, {without_scaling:.3f} without.</source>
        <translation>第 {layer} 层原始分数 QKᵀ 的标准差为 {std:.2f}；除以 √d_k = {sqrt_dk:.2f} 后为 {scaled:.2f}。各头平均熵：有缩放 {with_scaling:.3f} 奈特，无缩放 {without_scaling:.3f} 奈特。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>B: {what_if}</source>
        <translation>B：{what_if}</translation>
    </message>
    <message>
        <source>no what-if</source>
        <translation>不做假设实验</translation>
    </message>
    <message>
        <source>without positional encoding</source>
        <translation>去掉位置编码</translation>
    </message>
    <message>
        <source>without ÷√d_k</source>
        <translation>不除以 √d_k</translation>
    </message>
    <message>
        <source>without the causal mask</source>
        <translation>去掉因果掩码</translation>
    </message>
    <message>
        <source>uniform attention (α = 1/S)</source>
        <translation>均匀注意力（α = 1/S）</translation>
    </message>
    <message>
        <source>no attention (context zero)</source>
        <translation>无注意力（上下文为零）</translation>
    </message>
    <message>
        <source>Alignment (additive attention)</source>
        <translation>对齐（加性注意力）</translation>
    </message>
    <message>
        <source>Alignment (dot-product scores)</source>
        <translation>对齐（点积分数）</translation>
    </message>
    <message>
        <source>Alignment (scaled dot-product scores)</source>
        <translation>对齐（缩放点积分数）</translation>
    </message>
    <message>
        <source>k</source>
        <translation>k</translation>
    </message>
    <message>
        <source>p</source>
        <translation>p</translation>
    </message>
    <message>
        <source>this model&apos;s positions are a bias on the scores, not a table added to the tokens</source>
        <translation>这个模型的位置是分数上的偏置，而不是加到词元上的表格</translation>
    </message>
    <message>
        <source>this model normalises with neither LayerNorm nor RMSNorm</source>
        <translation>这个模型既不用 LayerNorm 也不用 RMSNorm 做归一化</translation>
    </message>
    <message>
        <source>the model could not compute this view: {message}</source>
        <translation>模型无法计算这个视图：{message}</translation>
    </message>
    <message>
        <source>This page could not be loaded: {error}</source>
        <translation>无法加载这个页面：{error}</translation>
    </message>
    <message>
        <source>CUDA (not available)</source>
        <translation>CUDA（不可用）</translation>
    </message>
    <message>
        <source>{kind}, layer {layer}, {who}; {scale}; the mask blocks {blocked} of {size} entries (click a head on the 'Attention heads' page to select it)</source>
        <translation>{kind}，第 {layer} 层，{who}；{scale}；掩码屏蔽了 {size} 个位置中的 {blocked} 个（在“注意力头”页点击一个头即可选中它）</translation>
    </message>
    <message>
        <source>Then a &lt;b&gt;mask&lt;/b&gt; sets blocked entries to −∞ so that softmax gives them exactly zero weight. The decoder's &lt;b&gt;causal mask&lt;/b&gt; hides the future; &lt;b&gt;padding masks&lt;/b&gt; hide the &amp;lt;pad&amp;gt; tokens that make sequences of different lengths fit one batch. Below: the selected layer and head, stage by stage, from the live model run teacher-forced, as in training.</source>
        <translation>然后由&lt;b&gt;掩码&lt;/b&gt;把被屏蔽的位置设为 −∞，于是 softmax 给它们的权重恰好为零。解码器的&lt;b&gt;因果掩码&lt;/b&gt;遮住未来；&lt;b&gt;填充掩码&lt;/b&gt;遮住为了把不同长度的序列放进同一批而补上的 &amp;lt;pad&amp;gt;。下图：所选层与头，逐步展示，来自以教师强制方式（与训练相同）运行的真实模型。</translation>
    </message>
    <message>
        <source>Then a &lt;b&gt;mask&lt;/b&gt; sets blocked entries to −∞ so that softmax gives them exactly zero weight. This decoder attends only over the source, so its one mask is the &lt;b&gt;padding mask&lt;/b&gt; over the &amp;lt;pad&amp;gt; tokens of a batch (tick the padded batch to see it). Below: stage by stage, from the live model run teacher-forced, as in training.</source>
        <translation>然后由&lt;b&gt;掩码&lt;/b&gt;把被屏蔽的位置设为 −∞，于是 softmax 给它们的权重恰好为零。这个解码器只关注源文本，所以它唯一的掩码是遮住一批中 &amp;lt;pad&amp;gt; 的&lt;b&gt;填充掩码&lt;/b&gt;（勾选填充批次即可看到）。下图：逐步展示，来自以教师强制方式（与训练相同）运行的真实模型。</translation>
    </message>
    <message>
        <source>QKᵀ + B&lt;br&gt;(raw scores)</source>
        <translation>QKᵀ + B&lt;br&gt;（原始分数）</translation>
    </message>
    <message>
        <source>W s&lt;br&gt;(decoder state)</source>
        <translation>W s&lt;br&gt;（解码器状态）</translation>
    </message>
    <message>
        <source>U h&lt;br&gt;(encoder states)</source>
        <translation>U h&lt;br&gt;（编码器状态）</translation>
    </message>
    <message>
        <source>tanh(W s + U h)&lt;br&gt;(at {query})</source>
        <translation>tanh(W s + U h)&lt;br&gt;（{query} 处）</translation>
    </message>
    <message>
        <source>vᵀ tanh(·)&lt;br&gt;(raw scores)</source>
        <translation>vᵀ tanh(·)&lt;br&gt;（原始分数）</translation>
    </message>
    <message>
        <source>s · h&lt;br&gt;(raw scores)</source>
        <translation>s · h&lt;br&gt;（原始分数）</translation>
    </message>
    <message>
        <source>÷ √d&lt;br&gt;(scaled)</source>
        <translation>÷ √d&lt;br&gt;（缩放后）</translation>
    </message>
    <message>
        <source>query {n} {token!r}</source>
        <translation>查询 {n} {token!r}</translation>
    </message>
    <message>
        <source>key {n} {token!r}</source>
        <translation>键 {n} {token!r}</translation>
    </message>
    <message>
        <source>dim {n}</source>
        <translation>第 {n} 维</translation>
    </message>
    <message>
        <source>scale {name} = {scale:.4f}</source>
        <translation>缩放 {name} = {scale:.4f}</translation>
    </message>
    <message>
        <source>the scores are not scaled</source>
        <translation>分数不缩放</translation>
    </message>
    <message>
        <source>{query} · {key}: {scores} → mask: {mask} → {masked} → softmax {weight:.4f}</source>
        <translation>{query} · {key}：{scores} → 掩码：{mask} → {masked} → softmax {weight:.4f}</translation>
    </message>
    <message>
        <source>{stage} · {where}: {value:.4f}</source>
        <translation>{stage} · {where}：{value:.4f}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Scaled dot-product attention&lt;/b&gt;: Attention(Q, K, V) = softmax(QKᵀ / √d_k) V. Each query row is compared with every key (QKᵀ) and divided by √d_k.</source>
        <translation>&lt;b&gt;缩放点积注意力&lt;/b&gt;：Attention(Q, K, V) = softmax(QKᵀ / √d_k) V。每个查询行与所有键比较（QKᵀ），再除以 √d_k。</translation>
    </message>
    <message>
        <source>&lt;b&gt;T5's self-attention&lt;/b&gt;: softmax(QKᵀ + B) V, where B is a learned bias for each relative distance between query and key (the 'Relative bias' page shows it). T5 does not divide by √d_k: the scale is folded into the initialisation of its weights.</source>
        <translation>&lt;b&gt;T5 的自注意力&lt;/b&gt;：softmax(QKᵀ + B) V，其中 B 是为查询与键之间每个相对距离学到的偏置（见“相对位置偏置”页）。T5 不除以 √d_k：缩放已并入其权重的初始化。</translation>
    </message>
    <message>
        <source>&lt;b&gt;T5's cross-attention&lt;/b&gt;: softmax(QKᵀ) V, with no position bias and no ÷√d_k (T5 folds the scale into the initialisation of its weights).</source>
        <translation>&lt;b&gt;T5 的交叉注意力&lt;/b&gt;：softmax(QKᵀ) V，没有位置偏置，也不除以 √d_k（T5 把缩放并入其权重的初始化）。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Additive attention&lt;/b&gt; (Bahdanau et al. 2014): e_j = vᵀ tanh(W s + U h_j). The decoder's previous state s and each encoder state h_j are projected to one width (W s, U h), added, squashed by tanh and read off by a learned vector v: no QKᵀ, no ÷√d_k. α = softmax(e) mixes the encoder states into the context the decoder reads next.</source>
        <translation>&lt;b&gt;加性注意力&lt;/b&gt;（Bahdanau 等，2014）：e_j = vᵀ tanh(W s + U h_j)。解码器的上一个状态 s 和每个编码器状态 h_j 先投影到同一宽度（W s、U h），相加，经 tanh 压缩，再由学到的向量 v 读出：没有 QKᵀ，也不除以 √d_k。α = softmax(e) 把各编码器状态混合成解码器下一步读取的上下文。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Dot-product attention&lt;/b&gt; (Luong et al. 2015): e_j = s · h_j, the dot product of the decoder's previous state s and each encoder state h_j as they are: no projections, no ÷√d. α = softmax(e) mixes the encoder states into the context the decoder reads next.</source>
        <translation>&lt;b&gt;点积注意力&lt;/b&gt;（Luong 等，2015）：e_j = s · h_j，即解码器的上一个状态 s 与每个编码器状态 h_j 直接做点积：没有投影，也不除以 √d。α = softmax(e) 把各编码器状态混合成解码器下一步读取的上下文。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Scaled dot-product attention&lt;/b&gt; over the RNN's states: e_j = s · h_j / √d, with d the width of the states: the Transformer's score without its projections W_Q and W_K. α = softmax(e) mixes the encoder states into the context the decoder reads next.</source>
        <translation>作用于 RNN 状态的&lt;b&gt;缩放点积注意力&lt;/b&gt;：e_j = s · h_j / √d，d 为状态的宽度——即去掉投影 W_Q 和 W_K 的 Transformer 打分。α = softmax(e) 把各编码器状态混合成解码器下一步读取的上下文。</translation>
    </message>
    <message>
        <source>{scores} {masks}</source>
        <translation>{scores}{masks}</translation>
    </message>
</context>
</TS>
