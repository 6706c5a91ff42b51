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
        <source>B: no what-if</source>
        <translation>B：不做假设实验</translation>
    </message>
    <message>
        <source>B: without positional encoding</source>
        <translation>B：去掉位置编码</translation>
    </message>
    <message>
        <source>B: without ÷√d_k</source>
        <translation>B：不除以 √d_k</translation>
    </message>
    <message>
        <source>B: without the causal mask</source>
        <translation>B：去掉因果掩码</translation>
    </message>
    <message>
        <source>Alignment</source>
        <translation>对齐</translation>
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
        <source>decoder reads &lt;bos&gt; + what it generated</source>
        <translation>解码器读入 &lt;bos&gt; + 已生成的内容</translation>
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
        <source>B: uniform attention (α = 1/S)</source>
        <translation>B：均匀注意力（α = 1/S）</translation>
    </message>
    <message>
        <source>B: no attention (context zero)</source>
        <translation>B：无注意力（上下文为零）</translation>
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
</context>
</TS>
