"""People's given names inside object-store bucket names: `s3://ximena-llm-ckpts/output`.

A person names a bucket after themself (`s3://raul-sft-runs`, `gs://priya_scratch`) with
nothing else in the log to say whose it is: neither their full name nor their login. A word of
the bucket name that is a given name, from a list of common given names across cultures, is
masked there and learned, so it goes wherever else the log prints it. Only whole words between
the bucket name's separators count (`rafael` in `rafael-ckpt`, not `raf` in `raft-eval`), and
names that are also words a training log prints (`ray`, `adam`, `gemma`) are left out of the
list (state._WORDLIKE_GIVEN holds more of them)."""

from __future__ import annotations

import re

from bot.masking.edits import Edit
from bot.masking.state import LogState
from bot.masking.surnames import FAMILY_NAMES

# The line gate: a bucket is written after its scheme.
BUCKET_WORDS = ("s3://", "gs://", "s3a://")

# s3:// and gs:// bucket names: 3 to 63 of lowercase letters, digits, dots and hyphens
# (GCS also takes underscores).
_BUCKET = re.compile(r"(?<![\w-])(?:s3a?|gs)://(?P<b>[a-z0-9][a-z0-9._-]{1,61}[a-z0-9])(?![a-z0-9._-])")
_WORD = re.compile(r"[a-z]+")
_FAMILY_AFTER = re.compile(r"[-_.]([a-z]+)(?![a-z])")

# Common given names, written in the ASCII a bucket name spells them with (accents dropped).
# Across origins: Irish, West African, Chinese (pinyin), Indian, Arabic, Slavic, Spanish and Vietnamese
# names as ML teams write them in logins, namespaces and run names (`aoife-mbeki`, `priya-lr3e-4`).
# Three letters or more; none that is also an English word or an ML term.
_GIVEN_NAMES_TEXT = """
    aarav aaron abdul abdullah abigail adriana adrian agnieszka ahmed aiden aisha akira alejandro aleksandr alexander
    alexandra alexei alice alicia amara amelia amina amir amit ananya anastasia andrea andreas andrei andrew angela
    anika anita anna anne annika anton antonio anya arjun arnav astrid ayesha aylin bartholomew beatriz benjamin bjorn
    bogdan camila carlos carmen carolina catarina chen chiara chidi chinedu chloe christian christina claire clara
    daniel daniela dariusz david diana diego dmitri dmitry eleanor elena elif elijah elizabeth ellie emeka emil emilia
    emily emma emre enrique erik esther ethan eva evelyn fabian fatima felipe felix fernando finn francesca francisco
    freya gabriel gabriela giorgio giulia giuseppe gustavo hamid hana hannah haruto hassan heidi helena henrik hiroshi
    ibrahim ignacio ines ingrid isabel isabella isak ivan jakob james javier jessica jiahui joanna johan johanna
    jonas jorge jose josef joseph juan julian jurgen kaito kamal karim karina karl katarzyna katharina kenji
    kofi kwame lakshmi laura leila leilani lena leon leonardo liam lina linnea lorenzo lucas lucia lucy ludwig luis
    lukas lukasz magdalena malak malik manuel marcel marco marcus margarita maria mariana marie marta martin mateo
    mateus matteo matthew maximilian maya mehmet mei mia michael miguel mikhail minh mohamed mohammed nadia naomi
    natalia nathan ngozi nicolas nikita nikolai nina noah noor nora oliver olivia oluwaseun omar oscar pablo patricia
    patrick paula paulo pedro piotr pooja priya rafael rahul rajesh ramon raul rebecca ricardo rohan roman rustam sakura
    samuel santiago sara sarah saoirse sebastian sergei sergio shreya sienna simon siobhan sofia soren stefan stefano
    sven takeshi tanvir teodora thandiwe thomas tobias tomasz valentina vanessa vikram vivek wojciech ximena
    yasmin yuki yusuf zainab zeynep zoe zofia
    evander adebayo aditya agata akash alejandra alessandro alvaro amelie andres anil anja anjali anke antoine arun ashok
    ayodele ayse ayumi baptiste barbara bartosz birgit boris brenda brittany bruno burak camille camilo carolyn
    catherine charlotte cheryl chioma christine christopher cian ciara clement cynthia daan daiki danielle davide
    deborah deepak denise dennis dieter divya donna dorothy douglas eitan elisa eoin federica femke florian
    francesco gerald giovanni gregory guillaume haoran haruka harold helena henry huda huong igor iker ilse irina
    ishaan itai jacqueline janet janice jannik jason jeffrey jennifer jeremy jihoon jisoo jiwoo jonathan joost joshua
    judith julien kacper kamau karen karthik kasia katherine kathleen kathryn katrin kavya kayla kenneth kenta kevin
    khalid kimberly kiran klaus krzysztof kwabena kyle lars lauren layla lennart linda linh manon manoj marek
    margaret margaux marilyn martha mathieu megan melissa mert michelle mikael minho minjun moritz nancy naoki
    natalie neha nicole niklas nikhil nils niamh njeri nkechi noa nour oisin oksana olga oleksandr olumide omri
    oskar pamela paolo pavel pawel pierre pieter pilar pranav priyanka quang rachel rania raymond rodrigo rohit
    ryota sabine salma samantha sander sandeep sandra sanjay sanne seoyeon shirley shota siddharth sigrid simone
    sipho sneha solveig sophie soyeon stephanie stefanie steven sunil suresh svetlana svenja takumi tamar tanvi
    tariq tatiana tendai teresa thabo thanh thiago thibault thijs timothy tuan tyler valeria valerio varun vijay
    vincent vladimir wanjiru wolfgang wouter xiaoming xinyi yael yifan yousef yuka yulia yuto yuxuan zachary zihan
    zuzanna ravi ramesh john robert william richard charles anthony donald kevin brian george edward ronald ryan
    jacob gary nicholas eric stephen larry justin scott brandon jerry walter keith gerald carl terry sean arthur
    lawrence jesse dylan bryan jordan logan alan wayne ralph eugene russell louis philip mary susan lisa betty
    ashley amanda sharon helen heather diane julie joyce victoria kelly christina joan evelyn gloria madison
    frances judy doris beverly theresa alexis lori sophia
    aoife ciaran tadhg padraig sinead orla grainne roisin aisling caoimhe deirdre eimear fionn darragh cathal colm
    diarmuid donal fiachra ronan seamus sorcha clodagh meabh mairead nuala aoibhinn eabha muireann cormac adaeze
    adaora chiamaka chinonso chukwuemeka ifeoma ifeanyi obinna uchenna nnamdi kelechi ikenna amaka babatunde folake
    funmilayo temitope tunde yetunde abimbola damilola segun femi bolanle kehinde taiwo tolulope titilayo bukola
    aminu halima hauwa kwaku akosua abena kojo efua adwoa zhiyuan mingyu xiaoyu xiaohui xiaowei zhihao zhiwei junjie
    jiaming haoyu yiming yuhang zixuan siyu yutong ruoxi shuang mengyao xiaolong jianguo weiming jingyi yichen
    zhengyang wenjie tianyu chenxi kaiyuan boyang hanyu yuqi shiyu jiayi jiaxin zhuo ming ying jing qiang jian qing
    wei venkatesh deepika sunita anand arvind ashwin balaji ganesh harish krishna lalitha madhavi mahesh meena
    nandini naveen padma prakash pradeep prasad rajiv ramya ranjit sanjana santosh saravanan shankar shanthi shweta
    srinivas sriram sudha swati vasanth vidya vignesh yamini aishwarya anusha bhavana gayatri harini jayanth kavitha
    keerthi manish mukesh pallavi rakesh ritu sachin sahil sanjeev smita sonali sowmya vikas vinay vishal yash aarti
    abhishek akshay aniket ankit anupam aravind arpita ashish chetan gaurav hemant jatin kunal lokesh mohit neeraj
    nitin pankaj prateek pratik puneet saurabh shubham sumit tarun raghav aditi ishita kriti megha nidhi payal
    preeti rashmi richa shalini shilpa tanya trisha vandana bhaskar dinesh girish jagdish murali youssef mahmoud
    mustafa hussein ismail samir nabil walid rami fadi ziad bilal hamza yasser faisal saeed salim nasser majid
    rashid abdulrahman abdallah noura mariam maryam dalia reem zeinab samira laila farah ghada lubna manal rasha
    hiba asma khadija zahra jamal adel tarek hisham osama ayman emad hazem marwan nizar qasim sami sherif wael
    miroslav ludmila lyudmila natasha tatyana ekaterina yekaterina galina larisa alena polina darya daria ksenia
    kseniya veronika aleksandra malgorzata ewa dorota beata justyna karolina monika milena jelena mirjana dragana
    ivana petra jana lenka zuzana alexey andrey sergey nikolay vladislav yaroslav stanislav vyacheslav oleg pyotr
    grigory konstantin artem artyom evgeny yevgeny fyodor ilya kirill leonid anatoly valery vadim viktor vitaly yuri
    yury timur ruslan zdenek jiri jaroslav ondrej radek vaclav jakub grzegorz marcin michal mateusz przemyslaw
    radoslaw slawomir zbigniew milos dusan goran dragan nenad zoran branko dejan nikola marko petar luka joaquin
    esteban gonzalo guillermo jesus julio marcos catalina claudia cristina guadalupe josefina juana leticia lorena
    lourdes marisol mercedes monica nuria raquel rocio rosario silvia sonia veronica yolanda agustin alfonso alfredo
    armando arturo cesar emilio ernesto eduardo gerardo hector jaime mariano mauricio octavio patricio vicente
    fabiola florencia macarena milagros thao hieu khanh khoa ngoc nhung phuong phuc quynh thang thuy tien trang
    trinh trung viet vinh giang hanh hien hoang loan oanh phong thien thinh toan truong uyen xuan binh chau cuong
    diep hoai khai luan luong nguyet nhan quoc tuyet
"""
GIVEN_NAMES = frozenset(_GIVEN_NAMES_TEXT.split())


def find_bucket_given_names(text: str, edits: list[Edit], state: LogState) -> None:
    """Mask (and learn) a given name that is a whole word of a bucket's name."""
    for m in _BUCKET.finditer(text):
        base = m.start("b")
        bucket = m.group("b")
        for word in _WORD.finditer(bucket):
            name = word.group()
            if name in GIVEN_NAMES:
                end = word.end()
                family = _FAMILY_AFTER.match(bucket, end)
                if family is not None and (
                    family.group(1) in FAMILY_NAMES or f"{name}-{family.group(1)}" in state.users  # (a login's DNS form)
                ):
                    # `gs://aisha-iyer-sandbox`, `s3://ckpt-lukas.novak`: her family name goes too,
                    # also one the list lacks when the log names her (`Mateo Galloway` in a chat).
                    end, name = family.end(), bucket[word.start() : family.end()]
                edits.append((base + word.start(), base + end, "user", name))
                state.learn_user(name)
